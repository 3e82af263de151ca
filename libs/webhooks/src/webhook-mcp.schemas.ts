import { z } from 'zod';
import { UUID_PATTERN } from '#libs/common';

/** The MCP tools' shapes of an endpoint and a delivery (each app's webhook tools answer the REST DTOs' fields). */
const dateTime = (what: string) => z.string().describe(`${what} (ISO 8601 date-time)`);
const nullableDateTime = (what: string) => z.string().nullable().describe(`${what} (ISO 8601 date-time)`);

export const webhookToolSchema = z.object({
  id: z.string().describe('The webhook endpoint id (uuid)'),
  url: z.string().describe('Where the events are POSTed'),
  eventTypes: z.array(z.string().describe('An event type')).describe('The event types it receives; empty: all'),
  description: z.string().describe('Its description'),
  enabled: z.boolean().describe('Whether events are delivered to it'),
  disabledReason: z.string().nullable().describe('Why it is disabled (e.g. it answered 410 Gone); null when enabled'),
  failureStreak: z.number().int().min(0).describe('Failed attempts in a row'),
  previousSecretExpiresAt: nullableDateTime('Until when the previous secret still signs beside the current one; null outside a rotation'),
  createdAt: dateTime('When it was created'),
  updatedAt: dateTime('When it was last changed'),
});

export const webhookDeliveryToolSchema = z.object({
  id: z.string().describe('The delivery id (uuid)'),
  webhookId: z.string().describe('The endpoint id'),
  eventId: z.string().describe('The event id (the webhook-id header; the realtime stream uses the same id)'),
  eventType: z.string().describe('The event type'),
  status: z.enum(['pending', 'delivered', 'failed']).describe('pending (queued or waiting for a retry), delivered or failed'),
  attempts: z.number().int().min(0).describe('Attempts made so far'),
  lastResponseCode: z.number().int().nullable().describe('HTTP status of the last attempt; null when there was no answer'),
  lastError: z.string().nullable().describe('What went wrong on the last attempt'),
  nextAttemptAt: nullableDateTime('When it is tried next (pending only)'),
  createdAt: dateTime('When it was queued'),
  completedAt: nullableDateTime('When it was delivered or given up'),
});

export const webhookIdToolInput = z
  .string()
  .max(36, { abort: true, error: 'must be a UUID' })
  .regex(UUID_PATTERN, 'must be a UUID')
  .describe('The webhook endpoint id (uuid), from list_webhooks or create_webhook');

/** create_webhook's input: the CreateWebhookDto fields (the tool also runs the DTO's rules) with the app's event types. */
export function createWebhookToolInput(eventTypes: [string, ...string[]], urlHint: string) {
  return z.object({
    url: z.string().min(1).max(2000).describe(urlHint),
    eventTypes: z.array(z.enum(eventTypes).describe('An event type')).max(50).describe('The event types to send; empty or omitted: all').optional(),
    description: z.string().max(200).describe('What the endpoint is for').optional(),
    enabled: z.boolean().describe('false creates it switched off (default true)').optional(),
  });
}


