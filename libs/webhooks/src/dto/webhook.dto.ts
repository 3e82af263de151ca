import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsBoolean, IsISO8601, IsString, MaxLength, MinLength } from 'class-validator';
import { IsOptionalNotNull } from '#libs/common';
import type { WebhookDeliveryRow } from '../webhook-deliveries.repository.js';
import type { WebhookEndpointRow } from '../webhook-endpoints.repository.js';

const WEBHOOK_URL_MAX_LENGTH = 2000;
const WEBHOOK_DESCRIPTION_MAX_LENGTH = 200;
const WEBHOOK_EVENT_TYPES_MAX = 50;

export class CreateWebhookDto {
  @ApiProperty({ maxLength: WEBHOOK_URL_MAX_LENGTH, example: 'https://example.com/hooks/todos', description: 'https (http only outside production); must resolve to a public address' })
  @IsString()
  @MinLength(1)
  @MaxLength(WEBHOOK_URL_MAX_LENGTH)
  url: string;

  @ApiPropertyOptional({ type: [String], example: ['todo.created'], description: 'Event types to receive; empty or absent: all of them' })
  @IsOptionalNotNull()
  @IsArray()
  @ArrayMaxSize(WEBHOOK_EVENT_TYPES_MAX)
  @IsString({ each: true })
  eventTypes?: string[];

  @ApiPropertyOptional({ maxLength: WEBHOOK_DESCRIPTION_MAX_LENGTH, example: 'Sync to our CRM' })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(WEBHOOK_DESCRIPTION_MAX_LENGTH)
  description?: string;

  @ApiPropertyOptional({ type: Boolean, default: true })
  @IsOptionalNotNull()
  @IsBoolean()
  enabled?: boolean;
}

export class UpdateWebhookDto {
  @ApiPropertyOptional({ maxLength: WEBHOOK_URL_MAX_LENGTH })
  @IsOptionalNotNull()
  @IsString()
  @MinLength(1)
  @MaxLength(WEBHOOK_URL_MAX_LENGTH)
  url?: string;

  @ApiPropertyOptional({ type: [String], description: 'Event types to receive; empty: all of them' })
  @IsOptionalNotNull()
  @IsArray()
  @ArrayMaxSize(WEBHOOK_EVENT_TYPES_MAX)
  @IsString({ each: true })
  eventTypes?: string[];

  @ApiPropertyOptional({ maxLength: WEBHOOK_DESCRIPTION_MAX_LENGTH })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(WEBHOOK_DESCRIPTION_MAX_LENGTH)
  description?: string;

  @ApiPropertyOptional({ type: Boolean, description: 'false stops deliveries; true re-enables (clears a 410 or failure disablement)' })
  @IsOptionalNotNull()
  @IsBoolean()
  enabled?: boolean;
}

export class SendTestWebhookDto {
  @ApiProperty({ example: 'todo.created', description: 'The event type whose sample payload is sent' })
  @IsString()
  @MaxLength(100)
  eventType: string;
}

export class ReplayWebhookDto {
  @ApiProperty({ type: String, format: 'date-time', description: 'Every finished delivery of this endpoint created at or after this time is sent again' })
  @IsString()
  @MaxLength(40)
  @IsISO8601({ strict: true })
  since: string;
}

export class WebhookEndpointDto {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ example: 'https://example.com/hooks/todos' })
  url: string;

  @ApiProperty({ type: [String], description: 'Empty: all event types' })
  eventTypes: string[];

  @ApiProperty({ example: 'Sync to our CRM' })
  description: string;

  @ApiProperty()
  enabled: boolean;

  @ApiProperty({ type: String, nullable: true, description: 'Why it is disabled (e.g. the endpoint answered 410 Gone)' })
  disabledReason: string | null;

  @ApiProperty({ description: 'Failed attempts in a row (0 after a success)' })
  failureStreak: number;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'Until when the previous secret still signs beside the current one (after a rotation)' })
  previousSecretExpiresAt: string | null;

  @ApiProperty({ type: String, format: 'date-time' })
  createdAt: string;

  @ApiProperty({ type: String, format: 'date-time' })
  updatedAt: string;
}

export function toWebhookEndpointDto(row: WebhookEndpointRow, now = new Date()): WebhookEndpointDto {
  const previousLive = row.previousSecretExpiresAt !== null && new Date(row.previousSecretExpiresAt) > now;
  return {
    id: row.id,
    url: row.url,
    eventTypes: row.eventTypes,
    description: row.description,
    enabled: row.enabled,
    disabledReason: row.disabledReason,
    failureStreak: row.failureStreak,
    previousSecretExpiresAt: previousLive ? new Date(row.previousSecretExpiresAt!).toISOString() : null,
    createdAt: new Date(row.createdAt).toISOString(),
    updatedAt: new Date(row.updatedAt).toISOString(),
  };
}

export class WebhookEndpointDataDto {
  @ApiProperty({ type: WebhookEndpointDto })
  webhook: WebhookEndpointDto;
}

export class WebhookEndpointSecretDto {
  @ApiProperty({ type: WebhookEndpointDto })
  webhook: WebhookEndpointDto;

  @ApiProperty({ example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', description: 'The signing secret, shown only in this answer' })
  secret: string;
}

export class WebhookEndpointListDto {
  @ApiProperty({ type: [WebhookEndpointDto] })
  webhooks: WebhookEndpointDto[];
}

export class WebhookEndpointDeletedDto {
  @ApiProperty({ example: true })
  deleted: true;
}

export class WebhookDeliveryDto {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ format: 'uuid' })
  webhookId: string;

  @ApiProperty({ example: 'evt_1234', description: 'The event id (the `webhook-id` header; the SSE `id:` of the same change)' })
  eventId: string;

  @ApiProperty({ example: 'todo.created' })
  eventType: string;

  @ApiProperty({ enum: ['pending', 'delivered', 'failed'] })
  status: 'pending' | 'delivered' | 'failed';

  @ApiProperty({ description: 'Attempts made so far' })
  attempts: number;

  @ApiProperty({ type: Number, nullable: true, description: 'HTTP status of the last attempt (null: no answer)' })
  lastResponseCode: number | null;

  @ApiProperty({ type: String, nullable: true, example: 'timed out' })
  lastError: string | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'When it is tried next (pending only)' })
  nextAttemptAt: string | null;

  @ApiProperty({ type: String, format: 'date-time' })
  createdAt: string;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  completedAt: string | null;
}

export function toWebhookDeliveryDto(row: WebhookDeliveryRow): WebhookDeliveryDto {
  return {
    id: row.id,
    webhookId: row.endpointId,
    eventId: row.eventId,
    eventType: row.eventType,
    status: row.status,
    attempts: row.attempts,
    lastResponseCode: row.lastResponseCode,
    lastError: row.lastError,
    nextAttemptAt: row.status === 'pending' ? new Date(row.nextAttemptAt).toISOString() : null,
    createdAt: new Date(row.createdAt).toISOString(),
    completedAt: row.completedAt === null ? null : new Date(row.completedAt).toISOString(),
  };
}

export class WebhookDeliveryListDto {
  @ApiProperty({ type: [WebhookDeliveryDto], description: 'Newest first, at most 100' })
  deliveries: WebhookDeliveryDto[];
}

export class WebhookDeliveryDataDto {
  @ApiProperty({ type: WebhookDeliveryDto })
  delivery: WebhookDeliveryDto;
}

export class WebhookReplayedDto {
  @ApiProperty({ description: 'Deliveries queued again' })
  replayed: number;
}
