/**
 * feedback-export's webhook vocabulary: its owner kind, its quota and its event catalogue, and the SQL with which
 * the repositories of the changes write each event into `feedback_events` (the outbox) in the change's own statement.
 * The migration's trigger (`webhook_enqueue('site', 'site_id')`) turns each row into deliveries in the same transaction.
 */
import type { FeedbackItemDto } from '../feedback/dto/feedback.dto.js';
import type { BatchAnswerSavedDataDto, BatchWebhookDataDto, FeedbackStatusChangedDataDto } from './dto/feedback-webhook-event.dto.js';

/** The owner kind of feedback-export's webhook endpoints (owner id: the site id); the feedback_events trigger names it too. */
export const FEEDBACK_WEBHOOK_OWNER_KIND = 'site';

/** Most webhook endpoints one site may have. */
export const MAX_WEBHOOKS_PER_SITE = 10;

const SITE_ID = '3f0c8a52-5d0e-4a8e-9a43-8d2b8e6f1c10';
const SAMPLE_FEEDBACK: FeedbackItemDto = {
  id: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
  siteId: SITE_ID,
  type: 'bug',
  message: 'The checkout button does nothing on mobile',
  rating: null,
  pageUrl: 'https://example.com/checkout',
  status: 'new',
  createdAt: '2026-11-27 10:15:00',
};
const SAMPLE_BATCH: BatchWebhookDataDto = {
  id: 'b5a7e3f2-1c4d-4e8a-9f6b-2d3c4e5f6a7b',
  siteId: SITE_ID,
  title: 'Homepage review',
  status: 'sent',
  questionCount: 3,
  answerCount: 0,
  createdAt: '2026-11-27T09:00:00.000Z',
  sentAt: '2026-11-27T09:05:00.000Z',
  openedAt: null,
  answeredAt: null,
};

/** feedback-export's event catalogue: every type a site's webhook can receive, with the sample `data` a test event carries. */
export const FEEDBACK_WEBHOOK_EVENTS = {
  'feedback.created': SAMPLE_FEEDBACK,
  'feedback.status_changed': { id: SAMPLE_FEEDBACK.id, siteId: SITE_ID, status: 'triaged', previousStatus: 'new' } satisfies FeedbackStatusChangedDataDto,
  'batch.sent': SAMPLE_BATCH,
  'batch.opened': { ...SAMPLE_BATCH, status: 'opened', openedAt: '2026-11-27T11:30:00.000Z' } satisfies BatchWebhookDataDto,
  'batch.answer_saved': { batchId: SAMPLE_BATCH.id, siteId: SITE_ID, n: 1, text: 'The hero image loads slowly.', updatedAt: '2026-11-27T11:32:10.000Z' } satisfies BatchAnswerSavedDataDto,
  'batch.answered': { ...SAMPLE_BATCH, status: 'answered', answerCount: 3, openedAt: '2026-11-27T11:30:00.000Z', answeredAt: '2026-11-27T11:40:00.000Z' } satisfies BatchWebhookDataDto,
};

export type FeedbackWebhookEventType = keyof typeof FEEDBACK_WEBHOOK_EVENTS;

// --- SQL for the repositories that write the events (each in the statement of its change) ---

/** A timestamptz as JavaScript's toISOString writes it (the batch DTOs' form). */
const iso = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** The feedback.created data (FeedbackItemDto) of a `feedback` row under `alias` (the export item's shape: see toFeedbackItemDto). */
export function feedbackCreatedDataSql(alias: string): string {
  return `jsonb_build_object('id', ${alias}.id, 'siteId', ${alias}.site_id, 'type', ${alias}.type, 'message', ${alias}.message, 'rating', ${alias}.rating,
      'pageUrl', ${alias}.page_url, 'status', ${alias}.status, 'createdAt', to_char(${alias}.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS'))
    || jsonb_strip_nulls(jsonb_build_object('reporterContext', ${alias}.reporter_context, 'reporter', ${alias}.reporter))`;
}

/** BatchWebhookDataDto of a `question_batches` row under `alias` (its counts read from batch_questions and batch_answers). */
export function batchEventDataSql(alias: string): string {
  return `jsonb_build_object('id', ${alias}.id, 'siteId', ${alias}.site_id, 'title', ${alias}.title, 'status', ${alias}.status,
      'questionCount', (SELECT count(*)::int FROM batch_questions q WHERE q.batch_id = ${alias}.id),
      'answerCount', (SELECT count(*)::int FROM batch_answers a WHERE a.batch_id = ${alias}.id),
      'createdAt', ${iso(`${alias}.created_at`)}, 'sentAt', ${iso(`${alias}.sent_at`)}, 'openedAt', ${iso(`${alias}.opened_at`)}, 'answeredAt', ${iso(`${alias}.answered_at`)})`;
}

/** BatchAnswerSavedDataDto of a `batch_answers` row under `alias`, with its batch's site id. */
export function answerSavedDataSql(alias: string, siteIdColumn: string): string {
  return `jsonb_build_object('batchId', ${alias}.batch_id, 'siteId', ${siteIdColumn}, 'n', ${alias}.n, 'text', ${alias}.text, 'updatedAt', ${iso(`${alias}.updated_at`)})`;
}

/** `INSERT INTO feedback_events … SELECT <site id>, '<type>', <payload> FROM <from>`: the event rows of a change. */
export function insertEventsSql(type: FeedbackWebhookEventType, siteIdSql: string, payloadSql: string, fromSql: string): string {
  return `INSERT INTO feedback_events (site_id, type, payload) SELECT ${siteIdSql}, '${type}', ${payloadSql} FROM ${fromSql}`;
}
