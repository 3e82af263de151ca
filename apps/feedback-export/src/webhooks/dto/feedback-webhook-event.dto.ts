import { ApiProperty } from '@nestjs/swagger';
import { FEEDBACK_STATUSES, type FeedbackStatus } from '../../feedback/feedback-kinds.js';
import { FeedbackItemDto } from '../../feedback/dto/feedback.dto.js';
import { BatchSummaryDto } from '../../questions/dto/question-batch.dto.js';

/** `data` of feedback.status_changed: one item whose status changed (single or bulk triage: one event per item). */
export class FeedbackStatusChangedDataDto {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ format: 'uuid' })
  siteId: string;

  @ApiProperty({ enum: FEEDBACK_STATUSES, description: 'The new status' })
  status: FeedbackStatus;

  @ApiProperty({ enum: FEEDBACK_STATUSES, description: 'The status before the change (never equal to status: setting the same status again sends nothing)' })
  previousStatus: FeedbackStatus;
}

/**
 * `data` of batch.sent, batch.opened and batch.answered: the batch summary as the batch routes list it (its status the
 * event that just happened: sent, opened or answered), with its site.
 */
export class BatchWebhookDataDto extends BatchSummaryDto {
  @ApiProperty({ format: 'uuid' })
  siteId: string;
}

/** `data` of batch.answer_saved: one save of one answer (each save, also after submit, is one event). */
export class BatchAnswerSavedDataDto {
  @ApiProperty({ format: 'uuid' })
  batchId: string;

  @ApiProperty({ format: 'uuid' })
  siteId: string;

  @ApiProperty({ type: 'integer', example: 1, description: 'The question number' })
  n: number;

  @ApiProperty({ example: 'The hero image loads slowly.', description: "The recipient's answer as saved (plain text)" })
  text: string;

  @ApiProperty({ format: 'date-time', description: 'When this save happened (the answer’s updatedAt)' })
  updatedAt: string;
}

const TIMESTAMP = { type: 'string', format: 'date-time', description: 'When the change was committed (the same on every retry; `webhook-timestamp` is the attempt’s)' } as const;

/** The body POSTed for feedback.created (headers `webhook-id` = the event id `evt_…`, `webhook-timestamp`, `webhook-signature`). */
export class FeedbackCreatedWebhookDto {
  @ApiProperty({ enum: ['feedback.created'] })
  type: 'feedback.created';

  @ApiProperty(TIMESTAMP)
  timestamp: string;

  @ApiProperty({ type: FeedbackItemDto, description: 'The item as the export lists it (widget or API submission)' })
  data: FeedbackItemDto;
}

export class FeedbackStatusChangedWebhookDto {
  @ApiProperty({ enum: ['feedback.status_changed'] })
  type: 'feedback.status_changed';

  @ApiProperty(TIMESTAMP)
  timestamp: string;

  @ApiProperty({ type: FeedbackStatusChangedDataDto })
  data: FeedbackStatusChangedDataDto;
}

export class BatchWebhookDto {
  @ApiProperty({ enum: ['batch.sent', 'batch.opened', 'batch.answered'], description: 'sent (at create with sendNow, or a draft sent), opened (first view of the share page), answered (first submit)' })
  type: 'batch.sent' | 'batch.opened' | 'batch.answered';

  @ApiProperty(TIMESTAMP)
  timestamp: string;

  @ApiProperty({ type: BatchWebhookDataDto })
  data: BatchWebhookDataDto;
}

export class BatchAnswerSavedWebhookDto {
  @ApiProperty({ enum: ['batch.answer_saved'] })
  type: 'batch.answer_saved';

  @ApiProperty(TIMESTAMP)
  timestamp: string;

  @ApiProperty({ type: BatchAnswerSavedDataDto })
  data: BatchAnswerSavedDataDto;
}

/** The documented body of every feedback-export webhook event (components of the OpenAPI document). */
export const FEEDBACK_WEBHOOK_EVENT_MODELS = [FeedbackCreatedWebhookDto, FeedbackStatusChangedWebhookDto, BatchWebhookDto, BatchAnswerSavedWebhookDto];
