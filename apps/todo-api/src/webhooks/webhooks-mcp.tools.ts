import { Injectable, OnModuleInit } from '@nestjs/common';
import { z } from 'zod';
import { createWebhookToolInput, CreateWebhookDto, webhookDeliveryToolSchema, WebhookEndpointsService, webhookIdToolInput, webhookToolSchema } from '#libs/webhooks';
import { TodoMcpToolRegistry, type TodoMcpScope } from '../mcp/todo-mcp-tool.registry.js';
import { MAX_WEBHOOKS_PER_ACCOUNT, TODO_WEBHOOK_EVENTS } from './todo-webhook-events.js';

const EVENT_TYPES = Object.keys(TODO_WEBHOOK_EVENTS) as [string, ...string[]];
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
      output: z.object({ webhooks: z.array(webhookToolSchema.describe('A webhook endpoint')).describe('The endpoints, oldest first') }),
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
      input: createWebhookToolInput(EVENT_TYPES, 'The https URL to POST events to; it must resolve to a public address'),
      output: z.object({ webhook: webhookToolSchema.describe('The new endpoint'), secret: z.string().describe('The signing secret (whsec_…), shown only in this answer') }),
      rules: CreateWebhookDto,
      scopes: WRITE,
      hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
      run: async (principal, input) => this.webhooks.create(principal.userId, input),
    });
    this.registry.register({
      name: 'delete_webhook',
      title: 'Delete a webhook endpoint',
      description: 'Deletes a webhook endpoint and its delivery log; nothing more is sent to it.',
      input: z.object({ id: webhookIdToolInput }),
      output: z.object({ deleted: z.literal(true).describe('Always true') }),
      scopes: WRITE,
      hints: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
      run: async (principal, args) => this.webhooks.delete(principal.userId, args.id),
    });
    this.registry.register({
      name: 'list_webhook_deliveries',
      title: 'List the deliveries of a webhook endpoint',
      description: "The endpoint's latest deliveries, newest first (at most 100, kept 30 days): status, attempts, last response code and error.",
      input: z.object({ id: webhookIdToolInput }),
      output: z.object({ deliveries: z.array(webhookDeliveryToolSchema.describe('A delivery')).describe('Newest first') }),
      scopes: READ,
      hints: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      run: async (principal, args) => this.webhooks.deliveriesOf(principal.userId, args.id),
    });
  }
}
