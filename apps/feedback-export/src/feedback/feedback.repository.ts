import { Injectable } from '@nestjs/common';
import { Database, PreparedQueries, type Transaction } from '#libs/database';
import { feedbackCreatedDataSql, insertEventsSql } from '../webhooks/feedback-event-log.js';
import type { FeedbackStatus, FeedbackType } from './feedback-kinds.js';

/** A feedback row to insert; its owner is passed beside the rows (all rows of one call share it). */
export interface NewFeedback {
  siteId: string;
  type: FeedbackType;
  message: string;
  rating: number | null;
  pageUrl: string;
  /** What the widget told about the reporter's browser; null or absent when nothing was sent. */
  reporterContext?: ReporterContext | null;
  /** The reporter the site's server vouched for (a verified identity token); null or absent when anonymous. */
  reporter?: Reporter | null;
}

/** Who sent the feedback, as the host site's server signed it: its user id, and e-mail and name when given. */
export interface Reporter {
  id: string;
  email?: string;
  name?: string;
}

/** The reporter's browser as the widget describes it (never cookies or page content). */
export interface ReporterContext {
  browser?: string;
  os?: string;
  viewport?: string;
  language?: string;
  referrer?: string;
}

export interface FeedbackRow {
  id: string;
  siteId: string;
  type: FeedbackType;
  message: string;
  rating: number | null;
  pageUrl: string;
  status: FeedbackStatus;
  /** 'YYYY-MM-DD HH:MM:SS' UTC, as published. */
  createdAt: string;
  /** created_at at full precision ('YYYY-MM-DD HH:MM:SS.US' UTC): the cursor position. */
  position: string;
  reporterContext: ReporterContext | null;
  reporter: Reporter | null;
  siteSlug?: string;
  siteName?: string;
}

export interface PageFilter {
  type?: FeedbackType;
  status?: FeedbackStatus;
  /** Rows to fetch (the page size plus one, to tell whether more follow). */
  take: number;
}

const ITEM_COLUMNS = `
  f.id, f.site_id AS "siteId", f.type, f.message, f.rating, f.page_url AS "pageUrl", f.status, f.reporter_context AS "reporterContext", f.reporter,
  to_char(f.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS') AS "createdAt",
  to_char(f.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US') AS "position"`;

/** The owner's commit clock ($1 = owner id), ticked in the insert's own statement: see insertMany. */
const OWNER_CLOCK = `clock AS (
    INSERT INTO feedback_owner_clock AS c (owner_id, last_at) VALUES ($1, clock_timestamp())
    ON CONFLICT (owner_id) DO UPDATE SET last_at = GREATEST(clock_timestamp(), c.last_at + interval '1 microsecond')
    RETURNING last_at
  )`;

/** The feedback.created event of every inserted row, in the insert's own statement (the outbox: feedback_events). */
const CREATED_EVENTS = `created AS (${insertEventsSql('feedback.created', 'f.site_id', feedbackCreatedDataSql('f'), 'inserted f')})`;

const INSERT_ONE = `WITH ${OWNER_CLOCK},
  inserted AS (
    INSERT INTO feedback (site_id, owner_id, type, message, rating, page_url, reporter_context, reporter, created_at)
    SELECT $2::uuid, $1, $3::text, $4::text, $5::smallint, $6::text, $7::jsonb, $8::jsonb, clock.last_at FROM clock
    RETURNING *
  ),
  ${CREATED_EVENTS}
  SELECT id FROM inserted`;

const INSERT_MANY = `WITH ${OWNER_CLOCK},
  inserted AS (
    INSERT INTO feedback (site_id, owner_id, type, message, rating, page_url, reporter_context, reporter, created_at)
    SELECT r.site_id, $1, r.type, r.message, r.rating, r.page_url, r.reporter_context, r.reporter, clock.last_at
    FROM clock, unnest($2::uuid[], $3::text[], $4::text[], $5::smallint[], $6::text[], $7::jsonb[], $8::jsonb[]) WITH ORDINALITY
         AS r(site_id, type, message, rating, page_url, reporter_context, reporter, n)
    ORDER BY r.n
    RETURNING *
  ),
  ${CREATED_EVENTS}
  SELECT id FROM inserted`;

/**
 * A status change ($1 owner, $2 site, $4 the new status) with its feedback.status_changed events in one statement:
 * `locked` reads (and locks, in id order) each item's status before the change, `updated` changes them, and an event
 * is written for each item whose status was another one (setting the same status again records nothing).
 */
const lockedStatuses = (match: string) => `locked AS (SELECT f.id, f.status FROM feedback f WHERE f.owner_id = $1 AND f.site_id = $2 AND ${match} ORDER BY f.id FOR UPDATE)`;
const STATUS_UPDATE = `updated AS (UPDATE feedback f SET status = $4, updated_at = now() FROM locked WHERE f.id = locked.id RETURNING f.*, locked.status AS previous_status)`;
const STATUS_CHANGED_EVENTS = `changed AS (${insertEventsSql(
  'feedback.status_changed',
  'u.site_id',
  `jsonb_build_object('id', u.id, 'siteId', u.site_id, 'status', u.status, 'previousStatus', u.previous_status)`,
  'updated u WHERE u.previous_status <> u.status',
)})`;

const contextJson = (row: NewFeedback): string | null => (row.reporterContext ? JSON.stringify(row.reporterContext) : null);
const reporterJson = (row: NewFeedback): string | null => (row.reporter ? JSON.stringify(row.reporter) : null);

/** The dashboard's triage filter (the owner's own view of one site; not the export's paging). */
export interface TriageFilter {
  type?: FeedbackType;
  status?: FeedbackStatus;
  /** Words to find in the message or the page URL (case-insensitive, taken literally). */
  q?: string;
  /** Inclusive UTC day bounds, 'YYYY-MM-DD'. */
  from?: string;
  to?: string;
  newestFirst: boolean;
  limit: number;
  offset: number;
}

@Injectable()
export class FeedbackRepository {
  constructor(
    private readonly sql: Database,
    private readonly prepared: PreparedQueries,
  ) {}

  /** `work` in one transaction (the widget's keyed submission: the Idempotency-Key row and the insert commit together). */
  transaction<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
    return this.sql.transaction(work);
  }

  /**
   * Inserts one owner's rows with a commit-ordered created_at, so that a poller that has passed a
   * position never later finds a row before it.
   *
   * The hazard: with created_at = now() (transaction start), a transaction that starts
   * earlier but commits later makes a row appear *behind* a cursor that already moved on.
   * Here created_at comes from the owner's clock row, upserted in the same statement as the
   * insert: the row lock on the clock is held until this transaction ends, and Postgres
   * releases locks only after the commit is visible. So the owner's next writer reads the clock
   * only after this commit is visible and gets a strictly later value (GREATEST with last + 1 µs,
   * so even a clock stepping back cannot reorder). Hence every snapshot that sees a row sees
   * every earlier row of the same owner, and keyset paging on (created_at, id) is exactly-once
   * for every poller, all of which read within one owner (a site, or one owner's portfolio).
   * Writers of one owner serialise only for the insert and commit; other owners' writers do not
   * wait at all. Call it as the last statement of `tx` (or alone, in autocommit, with `undefined`); the one
   * exception is the widget's keyed submission, which then stores its answer on its Idempotency-Key row (one
   * primary-key UPDATE) before the commit.
   */
  async insertMany(tx: Transaction | undefined, ownerId: string, rows: NewFeedback[]): Promise<string[]> {
    if (rows.length === 0) return [];
    // One row (every widget submission) as plain VALUES: unnest's array parameters cost about as
    // much as the clock itself (bench/README.md, feedback insert).
    const [statement, params] =
      rows.length === 1
        ? [INSERT_ONE, [ownerId, rows[0].siteId, rows[0].type, rows[0].message, rows[0].rating, rows[0].pageUrl, contextJson(rows[0]), reporterJson(rows[0])]]
        : [
            INSERT_MANY,
            [
              ownerId,
              rows.map((r) => r.siteId),
              rows.map((r) => r.type),
              rows.map((r) => r.message),
              rows.map((r) => r.rating),
              rows.map((r) => r.pageUrl),
              rows.map(contextJson),
              rows.map(reporterJson),
            ],
          ];
    // Alone (the widget's path) it is a prepared statement: planning the clock's upsert costs more than running it.
    const result = tx ? await tx.query<{ id: string }>(statement, params) : await this.prepared.query<{ id: string }>(statement, params);
    return result.map((row) => row.id);
  }

  /** A page of one site's feedback after `after`, in (created_at, id) order, on feedback_site_export_idx. */
  pageOfSite(ownerId: string, siteId: string, after: { at: string; id: string } | null, filter: PageFilter): Promise<FeedbackRow[]> {
    const params: unknown[] = [ownerId, siteId];
    const where = ['f.owner_id = $1', 'f.site_id = $2'];
    if (after) {
      params.push(after.at, after.id);
      where.push(`(f.created_at, f.id) > ($${params.length - 1}::timestamp AT TIME ZONE 'UTC', $${params.length}::uuid)`);
    }
    this.addFilters(where, params, filter);
    params.push(filter.take);
    // Export polling is the hot read: prepared (the text varies only by which filters are present).
    return this.prepared.query<FeedbackRow>(
      `SELECT ${ITEM_COLUMNS} FROM feedback f WHERE ${where.join(' AND ')} ORDER BY f.created_at, f.id LIMIT $${params.length}`,
      params,
    );
  }

  /** A page across every site of the owner in (created_at, site_id, id) order, on feedback_portfolio_export_idx. */
  pageOfPortfolio(ownerId: string, after: { at: string; siteId: string; id: string } | null, filter: PageFilter): Promise<FeedbackRow[]> {
    const params: unknown[] = [ownerId];
    const where = ['f.owner_id = $1'];
    if (after) {
      params.push(after.at, after.siteId, after.id);
      where.push(`(f.created_at, f.site_id, f.id) > ($2::timestamp AT TIME ZONE 'UTC', $3::uuid, $4::uuid)`);
    }
    this.addFilters(where, params, filter);
    params.push(filter.take);
    return this.prepared.query<FeedbackRow>(
      `SELECT ${ITEM_COLUMNS}, s.slug AS "siteSlug", s.name AS "siteName"
       FROM feedback f JOIN sites s ON s.id = f.site_id
       WHERE ${where.join(' AND ')} ORDER BY f.created_at, f.site_id, f.id LIMIT $${params.length}`,
      params,
    );
  }

  /**
   * Sets the status of a feedback item of the site; undefined when the site has no such item. `changed`: its status
   * was another one (a feedback.status_changed event was written).
   */
  async updateStatus(ownerId: string, siteId: string, id: string, status: FeedbackStatus): Promise<(FeedbackRow & { changed: boolean }) | undefined> {
    const rows = await this.sql.query<FeedbackRow & { changed: boolean }>(
      `WITH ${lockedStatuses('f.id = $3')}, ${STATUS_UPDATE}, ${STATUS_CHANGED_EVENTS}
       SELECT ${ITEM_COLUMNS}, f.previous_status <> f.status AS changed FROM updated f`,
      [ownerId, siteId, id, status],
    );
    return rows[0];
  }

  /**
   * Rows of the owner's triage view of a site (newest or oldest first, searched and filtered):
   * `offset` for the page a person asks for, or `after` (a row's position and id) for the CSV
   * download's chunks, which must not skip or repeat a row while new feedback arrives.
   */
  triageRows(ownerId: string, siteId: string, filter: TriageFilter, after?: { at: string; id: string }): Promise<FeedbackRow[]> {
    const { where, params } = this.triageWhere(ownerId, siteId, filter);
    if (after) {
      params.push(after.at, after.id);
      where.push(`(f.created_at, f.id) ${filter.newestFirst ? '<' : '>'} ($${params.length - 1}::timestamp AT TIME ZONE 'UTC', $${params.length}::uuid)`);
    }
    const order = filter.newestFirst ? 'f.created_at DESC, f.id DESC' : 'f.created_at, f.id';
    params.push(filter.limit, after ? 0 : filter.offset);
    return this.sql.query<FeedbackRow>(
      `SELECT ${ITEM_COLUMNS} FROM feedback f WHERE ${where.join(' AND ')} ORDER BY ${order} LIMIT $${params.length - 1} OFFSET $${params.length}`,
      params,
    );
  }

  /** How many rows of the site match the triage filter. */
  async triageCount(ownerId: string, siteId: string, filter: TriageFilter): Promise<number> {
    const { where, params } = this.triageWhere(ownerId, siteId, filter);
    const [{ total }] = await this.sql.query<{ total: string }>(`SELECT count(*) AS total FROM feedback f WHERE ${where.join(' AND ')}`, params);
    return Number(total);
  }

  /**
   * Sets the status of several items of the site at once; answers the ids that were updated and how many of them had
   * another status (each of those wrote a feedback.status_changed event).
   */
  async updateStatusMany(ownerId: string, siteId: string, ids: string[], status: FeedbackStatus): Promise<{ ids: string[]; changed: number }> {
    const rows = await this.sql.query<{ id: string; changed: boolean }>(
      `WITH ${lockedStatuses('f.id = ANY($3::uuid[])')}, ${STATUS_UPDATE}, ${STATUS_CHANGED_EVENTS}
       SELECT f.id, f.previous_status <> f.status AS changed FROM updated f`,
      [ownerId, siteId, ids, status],
    );
    return { ids: rows.map((row) => row.id), changed: rows.filter((row) => row.changed).length };
  }

  /** How many items with status `new` each of the owner's sites has (sites without any are absent). */
  async countNewBySite(ownerId: string): Promise<Array<{ siteId: string; count: number }>> {
    const rows = await this.sql.query<{ siteId: string; count: string }>(
      `SELECT f.site_id AS "siteId", count(*) AS count FROM feedback f WHERE f.owner_id = $1 AND f.status = 'new' GROUP BY f.site_id`,
      [ownerId],
    );
    return rows.map((row) => ({ siteId: row.siteId, count: Number(row.count) }));
  }

  private triageWhere(ownerId: string, siteId: string, filter: TriageFilter): { where: string[]; params: unknown[] } {
    const params: unknown[] = [ownerId, siteId];
    const where = ['f.owner_id = $1', 'f.site_id = $2'];
    this.addFilters(where, params, { type: filter.type, status: filter.status, take: 0 });
    if (filter.q) {
      // Taken literally: LIKE's wildcards and its escape character are escaped.
      params.push(`%${filter.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
      where.push(`(f.message ILIKE $${params.length} OR f.page_url ILIKE $${params.length})`);
    }
    if (filter.from) {
      params.push(filter.from);
      where.push(`f.created_at >= ($${params.length}::date::timestamp AT TIME ZONE 'UTC')`);
    }
    if (filter.to) {
      params.push(filter.to);
      where.push(`f.created_at < (($${params.length}::date + 1)::timestamp AT TIME ZONE 'UTC')`);
    }
    return { where, params };
  }

  private addFilters(where: string[], params: unknown[], filter: PageFilter): void {
    if (filter.type) {
      params.push(filter.type);
      where.push(`f.type = $${params.length}`);
    }
    if (filter.status) {
      params.push(filter.status);
      where.push(`f.status = $${params.length}`);
    }
  }
}
