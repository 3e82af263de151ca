import { Injectable } from '@nestjs/common';
import { Database, type Transaction } from '#libs/database';
import { answerSavedDataSql, batchEventDataSql, insertEventsSql } from '../webhooks/feedback-event-log.js';
import type { BatchStatus } from './batch-status.js';

export interface BatchRow {
  id: string;
  siteId: string;
  ownerId: string;
  title: string;
  introHtml: string;
  notifyEmail: string;
  status: BatchStatus;
  shareTokenSealed: string;
  questionCount: number;
  answerCount: number;
  createdAt: Date;
  sentAt: Date | null;
  openedAt: Date | null;
  answeredAt: Date | null;
  notifiedAt: Date | null;
  /** The sanitising policy its intro and question HTML went through (HTML_POLICY_VERSION; 0: written before versions). */
  htmlPolicyVersion: number;
}

export interface QuestionRow {
  n: number;
  title: string;
  html: string;
  answerText: string | null;
  answerUpdatedAt: Date | null;
}

export interface AnswerRow {
  n: number;
  text: string;
  updatedAt: Date;
}

export interface NewBatch {
  siteId: string;
  ownerId: string;
  title: string;
  introHtml: string;
  notifyEmail: string | null;
  sendNow: boolean;
  shareTokenHash: string;
  shareTokenSealed: string;
  /** The HTML below (introHtml, each html) is sanitised under this policy version. */
  htmlPolicyVersion: number;
  questions: Array<{ n: number; title: string; html: string }>;
}

/**
 * What a batch's stored text weighs against the site's byte quota: the UTF-8 bytes of its title,
 * intro HTML and each question's title and HTML, as stored (sanitised). siteBatchUsage sums the
 * same in SQL (octet_length).
 */
export function storedBatchBytes(batch: { title: string; introHtml: string; questions: ReadonlyArray<{ title: string; html: string }> }): number {
  const bytes = (text: string) => Buffer.byteLength(text, 'utf8');
  return bytes(batch.title) + bytes(batch.introHtml) + batch.questions.reduce((sum, q) => sum + bytes(q.title) + bytes(q.html), 0);
}

/** What an edit of a batch reads back, locked: its status and its text as stored. */
export interface StoredBatchText {
  status: BatchStatus;
  title: string;
  introHtml: string;
  questions: Array<{ n: number; title: string; html: string }>;
}

/** A site's batches and their stored bytes (storedBatchBytes summed), against its quotas. */
export interface SiteBatchUsage {
  batches: number;
  bytes: number;
}

const BATCH_COLUMNS = `
  b.id, b.site_id AS "siteId", b.owner_id AS "ownerId", b.title, b.intro_html AS "introHtml", b.notify_email AS "notifyEmail",
  b.status, b.share_token_sealed AS "shareTokenSealed",
  (SELECT count(*)::int FROM batch_questions q WHERE q.batch_id = b.id) AS "questionCount",
  (SELECT count(*)::int FROM batch_answers a WHERE a.batch_id = b.id) AS "answerCount",
  b.created_at AS "createdAt", b.sent_at AS "sentAt", b.opened_at AS "openedAt", b.answered_at AS "answeredAt", b.notified_at AS "notifiedAt",
  b.html_policy_version AS "htmlPolicyVersion"`;

/** Question batches, their questions and answers. Owner-facing queries take the owner id first. */
@Injectable()
export class QuestionsRepository {
  constructor(private readonly sql: Database) {}

  transaction<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
    return this.sql.transaction(work);
  }

  /**
   * The site's batch count and stored bytes, under a lock on the site's row (FOR NO KEY UPDATE:
   * feedback and batches referencing it are not held up) that every batch create of the site takes
   * first, so concurrent creates are counted one after the other. Undefined: not this owner's site.
   */
  async lockSiteBatchUsage(tx: Transaction, ownerId: string, siteId: string): Promise<SiteBatchUsage | undefined> {
    const locked = await tx.query(`SELECT id FROM sites WHERE owner_id = $1 AND id = $2 FOR NO KEY UPDATE`, [ownerId, siteId]);
    if (locked.length === 0) return undefined;
    // A later statement than the lock: its snapshot sees every batch a create that held the lock before committed.
    const rows = await tx.query<{ batches: number; bytes: string }>(
      `SELECT count(*)::int AS batches,
              COALESCE(sum(octet_length(b.title) + octet_length(b.intro_html)
                + (SELECT COALESCE(sum(octet_length(q.title) + octet_length(q.html)), 0) FROM batch_questions q WHERE q.batch_id = b.id)), 0)::bigint::text AS bytes
       FROM question_batches b WHERE b.site_id = $1`,
      [siteId],
    );
    return { batches: rows[0].batches, bytes: Number(rows[0].bytes) };
  }

  /** Inserts the batch and its questions in the transaction; the notify address defaults to the owner's e-mail. */
  async insert(tx: Transaction, batch: NewBatch): Promise<{ id: string; status: BatchStatus }> {
        const rows: Array<{ id: string; status: BatchStatus }> = await tx.query(
      `INSERT INTO question_batches (site_id, owner_id, title, intro_html, notify_email, status, sent_at, share_token_hash, share_token_sealed, html_policy_version)
       SELECT s.id, s.owner_id, $3, $4, COALESCE($5, u.email), CASE WHEN $6 THEN 'sent' ELSE 'draft' END, CASE WHEN $6 THEN now() END, $7, $8, $9
       FROM sites s JOIN users u ON u.id = s.owner_id
       WHERE s.owner_id = $1 AND s.id = $2
       RETURNING id, status`,
      [batch.ownerId, batch.siteId, batch.title, batch.introHtml, batch.notifyEmail, batch.sendNow, batch.shareTokenHash, batch.shareTokenSealed, batch.htmlPolicyVersion],
    );
    const created = rows[0];
    await tx.query(
      `INSERT INTO batch_questions (batch_id, n, title, html)
       SELECT $1, q.n, q.title, q.html FROM unnest($2::int[], $3::text[], $4::text[]) AS q(n, title, html)`,
      [created.id, batch.questions.map((q) => q.n), batch.questions.map((q) => q.title), batch.questions.map((q) => q.html)],
    );
    // Sent at once: its batch.sent event, in the create's transaction (after the questions, which it counts).
    if (created.status === 'sent') await tx.query(insertEventsSql('batch.sent', 'b.site_id', batchEventDataSql('b'), 'question_batches b WHERE b.id = $1'), [created.id]);
    return created;
  }

  listBySite(ownerId: string, siteId: string): Promise<BatchRow[]> {
    return this.sql.query(`SELECT ${BATCH_COLUMNS} FROM question_batches b WHERE b.owner_id = $1 AND b.site_id = $2 ORDER BY b.created_at, b.id`, [ownerId, siteId]);
  }

  async findInSite(ownerId: string, siteId: string, batchId: string): Promise<BatchRow | undefined> {
    const rows: BatchRow[] = await this.sql.query(`SELECT ${BATCH_COLUMNS} FROM question_batches b WHERE b.owner_id = $1 AND b.site_id = $2 AND b.id = $3`, [
      ownerId,
      siteId,
      batchId,
    ]);
    return rows[0];
  }

  /** A batch by its share token hash, drafts included (the caller decides). */
  async findByTokenHash(tokenHash: string): Promise<BatchRow | undefined> {
    const rows: BatchRow[] = await this.sql.query(`SELECT ${BATCH_COLUMNS} FROM question_batches b WHERE b.share_token_hash = $1`, [tokenHash]);
    return rows[0];
  }

  questionsWithAnswers(batchId: string): Promise<QuestionRow[]> {
    return this.sql.query(
      `SELECT q.n, q.title, q.html, a.text AS "answerText", a.updated_at AS "answerUpdatedAt"
       FROM batch_questions q LEFT JOIN batch_answers a ON a.batch_id = q.batch_id AND a.n = q.n
       WHERE q.batch_id = $1 ORDER BY q.n`,
      [batchId],
    );
  }

  /**
   * Replaces a batch's intro and question HTML by its copy sanitised under `toVersion`, if the batch
   * is still at `fromVersion` (a concurrent reader may have done it first); false when it was not.
   */
  async replaceHtml(tx: Transaction, batchId: string, fromVersion: number, toVersion: number, introHtml: string, questions: Array<{ n: number; html: string }>): Promise<boolean> {
    const rows = await tx.query(
      `UPDATE question_batches SET intro_html = $4, html_policy_version = $3 WHERE id = $1 AND html_policy_version = $2 RETURNING id`,
      [batchId, fromVersion, toVersion, introHtml],
    );
    if (rows.length === 0) return false;
    await tx.query(
      `UPDATE batch_questions q SET html = v.html FROM unnest($2::int[], $3::text[]) AS v(n, html) WHERE q.batch_id = $1 AND q.n = v.n`,
      [batchId, questions.map((q) => q.n), questions.map((q) => q.html)],
    );
    return true;
  }

  /**
   * A batch of this owner's site with its questions, its row locked for an edit (FOR UPDATE: a
   * concurrent send or delete waits for the edit, and the edit for them). Undefined: no such batch.
   */
  async lockForEdit(tx: Transaction, ownerId: string, siteId: string, batchId: string): Promise<StoredBatchText | undefined> {
    const rows: Array<Omit<StoredBatchText, 'questions'>> = await tx.query(
      `SELECT b.status, b.title, b.intro_html AS "introHtml" FROM question_batches b WHERE b.owner_id = $1 AND b.site_id = $2 AND b.id = $3 FOR UPDATE`,
      [ownerId, siteId, batchId],
    );
    if (rows.length === 0) return undefined;
    const questions: StoredBatchText['questions'] = await tx.query(`SELECT q.n, q.title, q.html FROM batch_questions q WHERE q.batch_id = $1 ORDER BY q.n`, [batchId]);
    return { ...rows[0], questions: questions.map((q) => ({ ...q, n: Number(q.n) })) };
  }

  /**
   * Rewrites a draft (locked by lockForEdit in the same transaction): title, intro, notify address
   * (null: the owner's e-mail) and every question, all sanitised under `htmlPolicyVersion`. A draft
   * has no answers (they are saved only on a sent batch), so replacing its questions loses none.
   */
  async rewriteDraft(tx: Transaction, batchId: string, batch: Pick<NewBatch, 'title' | 'introHtml' | 'notifyEmail' | 'htmlPolicyVersion' | 'questions'>, notifyEmailGiven: boolean): Promise<void> {
    await tx.query(
      `UPDATE question_batches b SET title = $2, intro_html = $3, html_policy_version = $4,
         notify_email = CASE WHEN $5 THEN COALESCE($6, (SELECT u.email FROM users u WHERE u.id = b.owner_id)) ELSE b.notify_email END
       WHERE b.id = $1 AND b.status = 'draft'`,
      [batchId, batch.title, batch.introHtml, batch.htmlPolicyVersion, notifyEmailGiven, batch.notifyEmail],
    );
    await tx.query(`DELETE FROM batch_questions WHERE batch_id = $1`, [batchId]);
    await tx.query(
      `INSERT INTO batch_questions (batch_id, n, title, html)
       SELECT $1, q.n, q.title, q.html FROM unnest($2::int[], $3::text[], $4::text[]) AS q(n, title, html)`,
      [batchId, batch.questions.map((q) => q.n), batch.questions.map((q) => q.title), batch.questions.map((q) => q.html)],
    );
  }

  /** Deletes a draft of this owner's site (its questions go with it); false when it was not one. */
  async deleteDraft(ownerId: string, siteId: string, batchId: string): Promise<boolean> {
    const rows = await this.sql.query(`DELETE FROM question_batches WHERE owner_id = $1 AND site_id = $2 AND id = $3 AND status = 'draft' RETURNING 1`, [
      ownerId,
      siteId,
      batchId,
    ]);
    return rows.length > 0;
  }

  /** draft -> sent; false when the batch was not a draft of this owner's site. */
  async markSent(ownerId: string, siteId: string, batchId: string): Promise<boolean> {
    const rows = await this.sql.query(
      `WITH changed AS (UPDATE question_batches SET status = 'sent', sent_at = now() WHERE owner_id = $1 AND site_id = $2 AND id = $3 AND status = 'draft' RETURNING *),
         event AS (${insertEventsSql('batch.sent', 'b.site_id', batchEventDataSql('b'), 'changed b')})
       SELECT id FROM changed`,
      [ownerId, siteId, batchId],
    );
    return rows.length > 0;
  }

  /** sent -> opened on the first view of the share page; a no-op in any other state. True when it moved (its batch.opened event written). */
  async markOpened(batchId: string): Promise<boolean> {
    const rows = await this.sql.query(
      `WITH changed AS (UPDATE question_batches SET status = 'opened', opened_at = now() WHERE id = $1 AND status = 'sent' RETURNING *)
       ${insertEventsSql('batch.opened', 'b.site_id', batchEventDataSql('b'), 'changed b')} RETURNING 1`,
      [batchId],
    );
    return rows.length > 0;
  }

  /**
   * Saves one answer in one statement (insert or replace), so concurrent saves never fail
   * or lose a row. updated_at moves strictly forward (at least 1 ms per edit), so every
   * edit shows a later time. Undefined when the batch is not live or has no question n.
   */
  async saveAnswer(tokenHash: string, n: number, text: string): Promise<AnswerRow | undefined> {
    const rows: AnswerRow[] = await this.sql.query(
      `WITH saved AS (
         INSERT INTO batch_answers AS a (batch_id, n, text, created_at, updated_at)
         SELECT q.batch_id, q.n, $3, clock_timestamp(), clock_timestamp()
         FROM question_batches b JOIN batch_questions q ON q.batch_id = b.id
         WHERE b.share_token_hash = $1 AND b.status <> 'draft' AND q.n = $2
         ON CONFLICT (batch_id, n) DO UPDATE SET
           text = EXCLUDED.text,
           updated_at = GREATEST(clock_timestamp(), a.updated_at + interval '1 millisecond')
         RETURNING a.*
       ),
       event AS (${insertEventsSql('batch.answer_saved', 'b.site_id', answerSavedDataSql('a', 'b.site_id'), 'saved a JOIN question_batches b ON b.id = a.batch_id')})
       SELECT a.n, a.text, a.updated_at AS "updatedAt" FROM saved a`,
      [tokenHash, n, text],
    );
    return rows[0];
  }

  /**
   * Submit: moves the batch to answered (keeping the first answeredAt, filling openedAt if the
   * page was skipped) and claims its one "answered" notification: `notified_at` is set only if it
   * was null, in a conditional UPDATE, so of any number of submits, concurrent ones included,
   * exactly one gets `claimedAt` (the others wait for its row lock and then find it set). The
   * time is cut to milliseconds so releaseNotification can match it as a JavaScript Date.
   */
  async submit(tx: Transaction, batchId: string): Promise<{ claimedAt: Date | null; answered: boolean }> {
    // batch.answered when this submit moved it to answered (a submit again, after more edits, records nothing new).
    const answered = await tx.query(
      `WITH locked AS (SELECT id, status FROM question_batches WHERE id = $1 FOR UPDATE),
         changed AS (
           UPDATE question_batches b SET status = 'answered', opened_at = COALESCE(b.opened_at, now()), answered_at = COALESCE(b.answered_at, now())
           FROM locked WHERE b.id = locked.id RETURNING b.*, locked.status AS previous_status
         )
       ${insertEventsSql('batch.answered', 'b.site_id', batchEventDataSql('b'), "changed b WHERE b.previous_status <> 'answered'")} RETURNING 1`,
      [batchId],
    );
    const claimed: Array<{ claimedAt: Date }> = await tx.query(
      `UPDATE question_batches SET notified_at = date_trunc('milliseconds', clock_timestamp()) WHERE id = $1 AND notified_at IS NULL RETURNING notified_at AS "claimedAt"`,
      [batchId],
    );
    return { claimedAt: claimed[0]?.claimedAt ?? null, answered: answered.length > 0 };
  }

  /** Gives a claimed notification back (it could not be sent), so a later submit tries again. */
  async releaseNotification(batchId: string, claimedAt: Date): Promise<void> {
    await this.sql.query(`UPDATE question_batches SET notified_at = NULL WHERE id = $1 AND notified_at = $2`, [batchId, claimedAt]);
  }

  /** Whether the recipient (digest of the canonical address) unsubscribed from the site's notifications. */
  async isUnsubscribed(siteId: string, recipientDigest: string): Promise<boolean> {
    const rows = await this.sql.query(`SELECT 1 FROM question_mail_unsubscribes WHERE site_id = $1 AND recipient_digest = $2`, [siteId, recipientDigest]);
    return rows.length > 0;
  }

  /** Records an unsubscribe (idempotent) in one statement; answers the site's name, undefined when the site no longer exists. */
  async unsubscribe(siteId: string, recipientDigest: string): Promise<string | undefined> {
    const rows: Array<{ name: string }> = await this.sql.query(
      `WITH site AS (SELECT id, name FROM sites WHERE id = $1),
            saved AS (INSERT INTO question_mail_unsubscribes (site_id, recipient_digest) SELECT id, $2 FROM site
                      ON CONFLICT (site_id, recipient_digest) DO NOTHING)
       SELECT name FROM site`,
      [siteId, recipientDigest],
    );
    return rows[0]?.name;
  }

  /** The owner's address and whether they confirmed it (the notification budgets are larger for a confirmed owner). */
  async ownerAddress(ownerId: string): Promise<{ email: string; confirmed: boolean } | undefined> {
    const rows: Array<{ email: string; confirmed: boolean }> = await this.sql.query(`SELECT email, email_confirmed = 1 AS confirmed FROM users WHERE id = $1`, [ownerId]);
    return rows[0];
  }

  /** The site's name (the notification names it; undefined once the site is gone). */
  async siteName(siteId: string): Promise<string | undefined> {
    const rows: Array<{ name: string }> = await this.sql.query(`SELECT name FROM sites WHERE id = $1`, [siteId]);
    return rows[0]?.name;
  }
}
