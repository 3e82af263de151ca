import { Inject, Injectable } from '@nestjs/common';
import type { Counter } from 'prom-client';
import { AppException, AppMetrics, ErrorCode, idempotentWrite, type IdempotentRequest } from '#libs/common';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { eventsWrittenCounter, type EventsWritten } from '#libs/webhooks';
import { SitesService } from '../sites/sites.service.js';
import type { FeedbackEventType } from '../webhooks/feedback-event-log.js';
import { FEEDBACK_EVENTS_WRITTEN } from '../webhooks/feedback-webhook-events.js';
import type { PortfolioPrincipal } from '../token-auth/feedback-token.authenticator.js';
import { requireWriteScope, type SiteAccess } from '../token-auth/site-access.js';
import {
  DEFAULT_PAGE_SIZE,
  toFeedbackItemDto,
  toPortfolioItemDto,
  type FeedbackItemDto,
  type FeedbackPageDto,
  type PortfolioFeedbackPageDto,
  type UpdateFeedbackStatusDto,
} from './dto/feedback.dto.js';
import { ExportCursorCodec } from './export-cursor.js';
import type { FeedbackStatus, FeedbackType } from './feedback-kinds.js';
import { FeedbackRepository, type FeedbackRow, type NewFeedback, type TriageFilter } from './feedback.repository.js';

export interface ExportQuery {
  since?: string;
  limit?: number;
  type?: FeedbackType;
  status?: FeedbackStatus;
}

/**
 * Feedback export and triage, shared by REST and MCP. Both front doors validate the input with
 * the same DTOs (ExportQueryDto, UpdateFeedbackStatusDto) before it gets here.
 */
@Injectable()
export class FeedbackService {
  private readonly cursors: ExportCursorCodec;
  private readonly exportedRows: Counter<'export'>;
  private readonly eventsWritten: EventsWritten<FeedbackEventType>;

  constructor(
    private readonly feedback: FeedbackRepository,
    private readonly sites: SitesService,
    @Inject(APP_CONFIG) config: AppConfig,
    metrics: AppMetrics,
  ) {
    this.cursors = new ExportCursorCodec(config.jwtSecret);
    this.exportedRows = metrics.counter({
      name: 'feedback_rows_exported_total',
      help: 'Feedback items handed out by the export (REST and MCP), by export: site (sk_/wk_) or portfolio (ok_)',
      labelNames: ['export'],
    });
    this.eventsWritten = eventsWrittenCounter(metrics, FEEDBACK_EVENTS_WRITTEN);
  }

  async pageOfSite(access: SiteAccess, query: ExportQuery): Promise<FeedbackPageDto> {
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    let after: { at: string; id: string } | null = null;
    if (query.since !== undefined) {
      const cursor = this.cursors.decode(query.since);
      if (cursor.kind !== 'site') throw new AppException(ErrorCode.CURSOR_MISMATCH, 'This is a portfolio cursor; the per-site export needs a per-site cursor');
      if (cursor.siteId !== access.siteId) throw new AppException(ErrorCode.CURSOR_MISMATCH, 'This cursor belongs to another site');
      after = cursor.at === null ? null : { at: cursor.at, id: cursor.id! };
    }
    const rows = await this.feedback.pageOfSite(access.ownerId, access.siteId, after, { type: query.type, status: query.status, take: limit + 1 });
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    const nextCursor = last
      ? this.cursors.encode({ kind: 'site', siteId: access.siteId, at: last.position, id: last.id })
      : (query.since ?? this.cursors.encode({ kind: 'site', siteId: access.siteId, at: null, id: null }));
    this.exportedRows.inc({ export: 'site' }, page.length);
    return { feedback: page.map(toFeedbackItemDto), nextCursor, hasMore: rows.length > limit };
  }

  async pageOfPortfolio(principal: Pick<PortfolioPrincipal, 'ownerId'>, query: ExportQuery): Promise<PortfolioFeedbackPageDto> {
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    let after: { at: string; siteId: string; id: string } | null = null;
    if (query.since !== undefined) {
      const cursor = this.cursors.decode(query.since);
      if (cursor.kind !== 'portfolio') throw new AppException(ErrorCode.CURSOR_MISMATCH, 'This is a per-site cursor; the portfolio export needs a portfolio cursor');
      if (cursor.ownerId !== principal.ownerId) throw new AppException(ErrorCode.CURSOR_MISMATCH, 'This cursor belongs to another account');
      after = cursor.at === null ? null : { at: cursor.at, siteId: cursor.siteId!, id: cursor.id! };
    }
    const rows = await this.feedback.pageOfPortfolio(principal.ownerId, after, { type: query.type, status: query.status, take: limit + 1 });
    const sites = await this.sites.listEntries(principal.ownerId);
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    const nextCursor = last
      ? this.cursors.encode({ kind: 'portfolio', ownerId: principal.ownerId, at: last.position, siteId: last.siteId, id: last.id })
      : (query.since ?? this.cursors.encode({ kind: 'portfolio', ownerId: principal.ownerId, at: null, siteId: null, id: null }));
    this.exportedRows.inc({ export: 'portfolio' }, page.length);
    return { feedback: page.map(toPortfolioItemDto), nextCursor, hasMore: rows.length > limit, sites };
  }

  /** Triage: only with the site's write token, only the site's own items (another site's id is 404). */
  async updateStatus(access: SiteAccess, feedbackId: string, status: UpdateFeedbackStatusDto['status']): Promise<FeedbackItemDto> {
    requireWriteScope(access, 'Changing feedback');
    const row = await this.feedback.updateStatus(access.ownerId, access.siteId, feedbackId, status);
    if (!row) throw new AppException(ErrorCode.NOT_FOUND, 'No such feedback on this site');
    if (row.changed) this.eventsWritten.written('feedback.status_changed');
    return toFeedbackItemDto(row);
  }

  /**
   * Stores one submission of a site's widget for the site's owner: without `keyed` in autocommit
   * (one prepared statement), else once per Idempotency-Key (idempotentWrite; a replay answers
   * the first id).
   */
  async submitFromWidget(ownerId: string, row: NewFeedback, keyed?: IdempotentRequest): Promise<{ data: { id: string }; replayed: boolean }> {
    if (!keyed) {
      const [id] = await this.feedback.insertMany(undefined, ownerId, [row]);
      this.eventsWritten.written('feedback.created');
      return { data: { id }, replayed: false };
    }
    const outcome = await this.feedback.transaction((tx) =>
      idempotentWrite(tx, keyed, 201, async () => {
        const [id] = await this.feedback.insertMany(tx, ownerId, [row]);
        return { id };
      }),
    );
    // A replay of the key wrote nothing.
    if (!outcome.replayed) this.eventsWritten.written('feedback.created');
    return outcome;
  }

  /** The owner's triage view of a site: a page of matching items and how many match. */
  async triagePage(access: SiteAccess, filter: TriageFilter): Promise<{ feedback: FeedbackItemDto[]; total: number; hasMore: boolean }> {
    const rows = await this.feedback.triageRows(access.ownerId, access.siteId, filter);
    const total = await this.feedback.triageCount(access.ownerId, access.siteId, filter);
    return { feedback: rows.map(toFeedbackItemDto), total, hasMore: filter.offset + rows.length < total };
  }

  /** Every item matching the triage filter, up to `maxRows`, in chunks of `chunk` rows (keyset: nothing skipped or repeated). */
  async *triageRowsInChunks(access: SiteAccess, filter: Omit<TriageFilter, 'limit' | 'offset'>, maxRows: number, chunk = 500): AsyncGenerator<FeedbackRow[]> {
    let after: { at: string; id: string } | undefined;
    for (let sent = 0; sent < maxRows; ) {
      const rows = await this.feedback.triageRows(access.ownerId, access.siteId, { ...filter, limit: Math.min(chunk, maxRows - sent), offset: 0 }, after);
      if (rows.length === 0) return;
      sent += rows.length;
      yield rows;
      const last = rows.at(-1)!;
      after = { at: last.position, id: last.id };
    }
  }

  /** Triage of several items of the site at once (owner access); answers the ids changed. */
  async updateStatusMany(access: SiteAccess, ids: string[], status: 'triaged' | 'resolved'): Promise<string[]> {
    requireWriteScope(access, 'Changing feedback');
    const { ids: updated, changed } = await this.feedback.updateStatusMany(access.ownerId, access.siteId, [...new Set(ids.map((id) => id.toLowerCase()))], status);
    this.eventsWritten.written('feedback.status_changed', changed);
    return updated;
  }

  /** Items with status new per site of the owner (sites without any are absent). */
  countNewBySite(ownerId: string): Promise<Array<{ siteId: string; count: number }>> {
    return this.feedback.countNewBySite(ownerId);
  }
}
