/**
 * feedback-export's event log (`feedback_events`, its webhook outbox): the SQL with which the repositories of the
 * changes write each event in the change's own statement (or transaction). The migration's trigger
 * (`webhook_enqueue('site', 'site_id')`) turns each row into deliveries to the site's endpoints in the same
 * transaction; the event id on the wire is `evt_` and the row's id. No imports: the repositories that use it are
 * imported by the DTOs that document the payloads.
 */

/** Every event type feedback-export writes (its webhook catalogue: FEEDBACK_WEBHOOK_EVENTS). */
export type FeedbackEventType = 'feedback.created' | 'feedback.status_changed' | 'batch.sent' | 'batch.opened' | 'batch.answer_saved' | 'batch.answered';

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
export function insertEventsSql(type: FeedbackEventType, siteIdSql: string, payloadSql: string, fromSql: string): string {
  return `INSERT INTO feedback_events (site_id, type, payload) SELECT ${siteIdSql}, '${type}', ${payloadSql} FROM ${fromSql}`;
}
