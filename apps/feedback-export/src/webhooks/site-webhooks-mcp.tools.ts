import { Injectable, OnModuleInit } from '@nestjs/common';
import { z } from 'zod';
import { createWebhookToolInput, CreateWebhookDto, webhookDeliveryToolSchema, WebhookEndpointsService, webhookIdToolInput, webhookToolSchema } from '#libs/webhooks';
import { FeedbackMcpToolRegistry, type FeedbackMcpScope } from '../mcp/feedback-mcp-tool.registry.js';
import { FEEDBACK_WEBHOOK_EVENTS, MAX_WEBHOOKS_PER_SITE } from './feedback-webhook-events.js';

const EVENT_TYPES = Object.keys(FEEDBACK_WEBHOOK_EVENTS) as [string, ...string[]];
/** As on REST, a site's webhooks are the write token's (or feedback:write's): their URLs and deliveries are the integration's. */
const WRITE: readonly FeedbackMcpScope[] = ['write'];

/** Webhook endpoints of the caller's site (siteId with a grant over several) on the feedback MCP endpoint: the REST routes' rules and answers, through WebhookEndpointsService. */
@Injectable()
export class SiteWebhooksMcpTools implements OnModuleInit {
  constructor(
    private readonly registry: FeedbackMcpToolRegistry,
    private readonly webhooks: WebhookEndpointsService,
  ) {}

  onModuleInit(): void {
    this.registry.registerForSite({
      name: 'list_webhooks',
      title: 'List webhook endpoints',
      description: "Lists the site's webhook endpoints (where its feedback and question-batch events are POSTed, signed with Standard Webhooks); never their secrets.",
      input: z.object({}),
      output: z.object({ webhooks: z.array(webhookToolSchema.describe('A webhook endpoint')).describe('The endpoints, oldest first') }),
      scopes: WRITE,
      hints: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      run: async (site) => this.webhooks.list(site.siteId),
    });
    this.registry.registerForSite({
      name: 'create_webhook',
      title: 'Create a webhook endpoint',
      description:
        `Registers an https URL that receives the site's events (${EVENT_TYPES.join(', ')}) as signed POSTs. Returns the endpoint and ` +
        `its signing secret (whsec_…), which is shown only now: hand it to whoever verifies the deliveries. At most ${MAX_WEBHOOKS_PER_SITE} per site.`,
      input: createWebhookToolInput(EVENT_TYPES, 'The https URL to POST events to; it must resolve to a public address'),
      output: z.object({ webhook: webhookToolSchema.describe('The new endpoint'), secret: z.string().describe('The signing secret (whsec_…), shown only in this answer') }),
      rules: CreateWebhookDto,
      scopes: WRITE,
      hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
      run: async (site, input) => this.webhooks.create(site.siteId, input),
    });
    this.registry.registerForSite({
      name: 'delete_webhook',
      title: 'Delete a webhook endpoint',
      description: 'Deletes a webhook endpoint of the site and its delivery log; nothing more is sent to it.',
      input: z.object({ id: webhookIdToolInput }),
      output: z.object({ deleted: z.literal(true).describe('Always true') }),
      scopes: WRITE,
      hints: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
      run: async (site, args) => this.webhooks.delete(site.siteId, args.id),
    });
    this.registry.registerForSite({
      name: 'list_webhook_deliveries',
      title: 'List the deliveries of a webhook endpoint',
      description: "The endpoint's latest deliveries, newest first (at most 100, kept 30 days): status, attempts, last response code and error.",
      input: z.object({ id: webhookIdToolInput }),
      output: z.object({ deliveries: z.array(webhookDeliveryToolSchema.describe('A delivery')).describe('Newest first') }),
      scopes: WRITE,
      hints: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      run: async (site, args) => this.webhooks.deliveriesOf(site.siteId, args.id),
    });
  }
}
