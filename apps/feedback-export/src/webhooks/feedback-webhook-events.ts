/**
 * feedback-export's webhook vocabulary: its owner kind, its quota and its event catalogue (each type with the sample
 * `data` a test event carries). The events themselves are written by the changes' repositories (feedback-event-log.ts).
 */
import { WEBHOOK_OWNER_KINDS, type EventLogVocabulary } from '#libs/webhooks';
import type { FeedbackItemDto } from '../feedback/dto/feedback.dto.js';
import type { BatchAnswerSavedDataDto, BatchWebhookDataDto, FeedbackStatusChangedDataDto } from './dto/feedback-webhook-event.dto.js';
import type { FeedbackEventType } from './feedback-event-log.js';

/** The owner kind of feedback-export's webhook endpoints (owner id: the site id); the feedback_events trigger names it too. */
export const FEEDBACK_WEBHOOK_OWNER_KIND = WEBHOOK_OWNER_KINDS.site;

/** The subject of the mail to a site's owner whose webhook endpoint was disabled for failing too long. */
export const SITE_WEBHOOK_DISABLED_SUBJECT = "Your site's webhook endpoint was disabled";

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
} satisfies Record<FeedbackEventType, unknown>;

/** feedback_events_written_total (libs/webhooks eventsWrittenCounter): events written to the event log, by type. */
export const FEEDBACK_EVENTS_WRITTEN: EventLogVocabulary<FeedbackEventType> = {
  name: 'feedback_events_written_total',
  help: "Feedback and question-batch events written to the event log (the webhooks' outbox), by type",
  eventTypes: Object.keys(FEEDBACK_WEBHOOK_EVENTS) as FeedbackEventType[],
};
