import { Injectable, OnModuleInit } from '@nestjs/common';
import { z } from 'zod';
import { UUID_PATTERN } from '#libs/common';
import { CreateWebhookDto, WebhookEndpointsService } from '#libs/webhooks';
import { TodoMcpToolRegistry, type TodoMcpScope } from '../mcp/todo-mcp-tool.registry.js';
import { MAX_WEBHOOKS_PER_ACCOUNT, TODO_WEBHOOK_EVENTS } from './todo-webhook-events.js';

const EVENT_TYPES = Object.keys(TODO_WEBHOOK_EVENTS) as [string, ...string[]];
const dateTime = (what: string) => z.string().describe(`${what} (ISO 8601 date-time)`);
const nullableDateTime = (what: string) => z.string().nullable().describe(`${what} (ISO 8601 date-time)`);

const webhook = z.object({
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

const delivery = z.object({
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

const webhookId = z
  .string()
  .max(36, { abort: true, error: 'must be a UUID' })
  .regex(UUID_PATTERN, 'must be a UUID')
  .describe('The webhook endpoint id (uuid), from list_webhooks or create_webhook');

const READ: readonly TodoMcpScope[] = ['todos:read'];
const WRITE: readonly TodoMcpScope[] = ['todos:write'];

/** Webhook endpoints on the todo MCP endpoint: the REST routes' rules and answers, through WebhookEndpointsService. */
@Injectable()
export class WebhooksMcpTools implements OnModuleInit {
  constructor(
    private readonly registry: TodoMcpToolRegistry,
    private readonly webhooks: WebhookEndpointsService,
  ) {}

  onModuleInit(): void {
    this.registry.register({
      name: 'list_webhooks',
      title: 'List webhook endpoints',
      description: "Lists the user's webhook endpoints (where todo events are POSTed, signed with Standard Webhooks); never their secrets.",
      input: z.object({}),
      output: z.object({ webhooks: z.array(webhook.describe('A webhook endpoint')).describe('The endpoints, oldest first') }),
      scopes: READ,
      hints: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      run: async (principal) => this.webhooks.list(principal.userId),
    });
    this.registry.register({
      name: 'create_webhook',
      title: 'Create a webhook endpoint',
      description:
        `Registers an https URL that receives the user's todo events (${EVENT_TYPES.join(', ')}) as signed POSTs. Returns the endpoint and ` +
        `its signing secret (whsec_…), which is shown only now: hand it to whoever verifies the deliveries. At most ${MAX_WEBHOOKS_PER_ACCOUNT} per account.`,
      input: z.object({
        url: z.string().min(1).max(2000).describe('The https URL to POST events to; it must resolve to a public address'),
        eventTypes: z.array(z.enum(EVENT_TYPES).describe('An event type')).max(50).describe('The event types to send; empty or omitted: all').optional(),
        description: z.string().max(200).describe('What the endpoint is for').optional(),
        enabled: z.boolean().describe('false creates it switched off (default true)').optional(),
      }),
      output: z.object({ webhook: webhook.describe('The new endpoint'), secret: z.string().describe('The signing secret (whsec_…), shown only in this answer') }),
      rules: CreateWebhookDto,
      scopes: WRITE,
      hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
      run: async (principal, input) => this.webhooks.create(principal.userId, input),
    });
    this.registry.register({
      name: 'delete_webhook',
      title: 'Delete a webhook endpoint',
      description: 'Deletes a webhook endpoint and its delivery log; nothing more is sent to it.',
      input: z.object({ id: webhookId }),
      output: z.object({ deleted: z.literal(true).describe('Always true') }),
      scopes: WRITE,
      hints: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
      run: async (principal, args) => this.webhooks.delete(principal.userId, args.id),
    });
    this.registry.register({
      name: 'list_webhook_deliveries',
      title: 'List the deliveries of a webhook endpoint',
      description: "The endpoint's latest deliveries, newest first (at most 100, kept 30 days): status, attempts, last response code and error.",
      input: z.object({ id: webhookId }),
      output: z.object({ deliveries: z.array(delivery.describe('A delivery')).describe('Newest first') }),
      scopes: READ,
      hints: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      run: async (principal, args) => this.webhooks.deliveriesOf(principal.userId, args.id),
    });
  }
}
