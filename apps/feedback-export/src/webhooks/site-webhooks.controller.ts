import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
import { ApiExtraModels, ApiOperation, ApiParam, ApiTags, getSchemaPath } from '@nestjs/swagger';
import { ApiEnvelope, ApiErrors, CurrentPrincipal, ErrorCode, RateLimit, UseAuth, UUID_PARAM, type Principal } from '#libs/common';
import {
  CreateWebhookDto,
  ReplayWebhookDto,
  SendTestWebhookDto,
  UpdateWebhookDto,
  WebhookDeliveryDataDto,
  WebhookDeliveryListDto,
  WebhookEndpointDataDto,
  WebhookEndpointDeletedDto,
  WebhookEndpointListDto,
  WebhookEndpointSecretDto,
  WebhookReplayedDto,
  webhookRateLimits,
} from '#libs/webhooks';
import { BatchAnswerSavedWebhookDto, BatchWebhookDto, FEEDBACK_WEBHOOK_EVENT_MODELS, FeedbackCreatedWebhookDto, FeedbackStatusChangedWebhookDto } from './dto/feedback-webhook-event.dto.js';
import { FEEDBACK_WEBHOOK_EVENTS, MAX_WEBHOOKS_PER_SITE } from './feedback-webhook-events.js';
import { SiteWebhooksService } from './site-webhooks.service.js';

/** Budgets under this app's bucket names (README: Every limit). */
const SITE_WEBHOOK_RATE_LIMITS = webhookRateLimits('site-webhooks');

const ACCESS_ERRORS = [ErrorCode.AUTH_REQUIRED, ErrorCode.INVALID_TOKEN, ErrorCode.NOT_FOUND, ErrorCode.RATE_LIMITED] as const;
const EVENT_TYPES = Object.keys(FEEDBACK_WEBHOOK_EVENTS).join(', ');
const SITE_ID = { name: 'siteId', format: 'uuid' } as const;
const WEBHOOK_ID = { name: 'webhookId', format: 'uuid' } as const;
/** What an endpoint receives, per event: the create operation's OpenAPI callbacks (POSTed to the registered url). */
const EVENT_CALLBACKS = Object.fromEntries(
  [
    { name: 'feedback.created', summary: 'feedback.created: feedback submitted through the widget or the API', type: FeedbackCreatedWebhookDto },
    { name: 'feedback.status_changed', summary: 'feedback.status_changed: an item triaged (one event per item whose status changed)', type: FeedbackStatusChangedWebhookDto },
    { name: 'batch.sent|batch.opened|batch.answered', summary: 'batch.sent, batch.opened, batch.answered: a question batch sent, first viewed, first submitted', type: BatchWebhookDto },
    { name: 'batch.answer_saved', summary: 'batch.answer_saved: one answer saved by the recipient', type: BatchAnswerSavedWebhookDto },
  ].map(({ name, summary, type }) => [
    name,
    {
      '{$request.body#/url}': {
        post: {
          tags: ['Webhooks'],
          summary,
          // No credential is sent: the receiver checks the signature.
          security: [],
          description: 'Signed with Standard Webhooks: headers `webhook-id` (the event id `evt_…`), `webhook-timestamp` and `webhook-signature`.',
          requestBody: { required: true, content: { 'application/json': { schema: { $ref: getSchemaPath(type) } } } },
          responses: { '200': { description: 'Any 2xx acknowledges the delivery; 410 disables the endpoint; anything else (or no answer within 5 s) is retried' } },
        },
      },
    },
  ]),
);

/**
 * A site's webhook endpoints for its feedback and question-batch events: the site's write token (wk_) or its
 * owner's access token. A token of another site is answered 404 like a missing site.
 */
@ApiTags('Webhooks')
@Controller('api/v1/sites/:siteId/webhooks')
@UseAuth('site-write-or-jwt')
export class SiteWebhooksController {
  constructor(private readonly webhooks: SiteWebhooksService) {}

  @Post()
  @RateLimit(SITE_WEBHOOK_RATE_LIMITS.manage)
  @ApiOperation({
    operationId: 'createSiteWebhook',
    summary: "Register a webhook endpoint for a site's feedback and question-batch events (wk_ or owner)",
    description:
      `Event types: ${EVENT_TYPES} (eventTypes empty or absent: all). Each change is POSTed signed (Standard Webhooks: ` +
      '`webhook-id`, `webhook-timestamp`, `webhook-signature`). The signing secret (`whsec_…`) is returned only in this answer. ' +
      `The URL must be https (production) and resolve to a public address. At most ${MAX_WEBHOOKS_PER_SITE} endpoints per site (403 QUOTA_EXCEEDED). ` +
      'The body POSTed for each event type is in this operation’s callbacks.',
    callbacks: EVENT_CALLBACKS,
  })
  @ApiExtraModels(...FEEDBACK_WEBHOOK_EVENT_MODELS)
  @ApiParam(SITE_ID)
  @ApiEnvelope(WebhookEndpointSecretDto, { status: 201 })
  @ApiErrors(...ACCESS_ERRORS, ErrorCode.VALIDATION_ERROR, ErrorCode.QUOTA_EXCEEDED)
  create(@CurrentPrincipal() principal: Principal, @Param('siteId', UUID_PARAM) siteId: string, @Body() body: CreateWebhookDto): Promise<WebhookEndpointSecretDto> {
    return this.webhooks.create(principal, siteId, body);
  }

  @Get()
  @RateLimit(SITE_WEBHOOK_RATE_LIMITS.read)
  @ApiOperation({ operationId: 'listSiteWebhooks', summary: "The site's webhook endpoints, oldest first (never their secrets)" })
  @ApiParam(SITE_ID)
  @ApiEnvelope(WebhookEndpointListDto)
  @ApiErrors(...ACCESS_ERRORS)
  list(@CurrentPrincipal() principal: Principal, @Param('siteId', UUID_PARAM) siteId: string): Promise<WebhookEndpointListDto> {
    return this.webhooks.list(principal, siteId);
  }

  @Post('deliveries/:deliveryId/replay')
  @HttpCode(202)
  @RateLimit(SITE_WEBHOOK_RATE_LIMITS.send)
  @ApiOperation({ operationId: 'replaySiteWebhookDelivery', summary: 'Send a delivery again', description: 'Queues it now with a fresh round of retries (same event id and payload, new signature).' })
  @ApiParam(SITE_ID)
  @ApiParam({ name: 'deliveryId', format: 'uuid' })
  @ApiEnvelope(WebhookDeliveryDataDto, { status: 202 })
  @ApiErrors(...ACCESS_ERRORS)
  replayDelivery(@CurrentPrincipal() principal: Principal, @Param('siteId', UUID_PARAM) siteId: string, @Param('deliveryId', UUID_PARAM) deliveryId: string): Promise<WebhookDeliveryDataDto> {
    return this.webhooks.replay(principal, siteId, deliveryId);
  }

  @Get(':webhookId')
  @RateLimit(SITE_WEBHOOK_RATE_LIMITS.read)
  @ApiOperation({ operationId: 'getSiteWebhook', summary: 'One webhook endpoint of the site' })
  @ApiParam(SITE_ID)
  @ApiParam(WEBHOOK_ID)
  @ApiEnvelope(WebhookEndpointDataDto)
  @ApiErrors(...ACCESS_ERRORS)
  get(@CurrentPrincipal() principal: Principal, @Param('siteId', UUID_PARAM) siteId: string, @Param('webhookId', UUID_PARAM) webhookId: string): Promise<WebhookEndpointDataDto> {
    return this.webhooks.get(principal, siteId, webhookId);
  }

  @Patch(':webhookId')
  @RateLimit(SITE_WEBHOOK_RATE_LIMITS.manage)
  @ApiOperation({ operationId: 'updateSiteWebhook', summary: 'Change a webhook endpoint of the site', description: '`enabled: true` re-enables an endpoint disabled by a 410 answer or by failing too long.' })
  @ApiParam(SITE_ID)
  @ApiParam(WEBHOOK_ID)
  @ApiEnvelope(WebhookEndpointDataDto)
  @ApiErrors(...ACCESS_ERRORS, ErrorCode.VALIDATION_ERROR)
  update(
    @CurrentPrincipal() principal: Principal,
    @Param('siteId', UUID_PARAM) siteId: string,
    @Param('webhookId', UUID_PARAM) webhookId: string,
    @Body() body: UpdateWebhookDto,
  ): Promise<WebhookEndpointDataDto> {
    return this.webhooks.update(principal, siteId, webhookId, body);
  }

  @Delete(':webhookId')
  @RateLimit(SITE_WEBHOOK_RATE_LIMITS.manage)
  @ApiOperation({ operationId: 'deleteSiteWebhook', summary: 'Delete a webhook endpoint of the site and its deliveries' })
  @ApiParam(SITE_ID)
  @ApiParam(WEBHOOK_ID)
  @ApiEnvelope(WebhookEndpointDeletedDto)
  @ApiErrors(...ACCESS_ERRORS)
  delete(@CurrentPrincipal() principal: Principal, @Param('siteId', UUID_PARAM) siteId: string, @Param('webhookId', UUID_PARAM) webhookId: string): Promise<WebhookEndpointDeletedDto> {
    return this.webhooks.delete(principal, siteId, webhookId);
  }

  @Post(':webhookId/rotate-secret')
  @HttpCode(200)
  @RateLimit(SITE_WEBHOOK_RATE_LIMITS.manage)
  @ApiOperation({
    operationId: 'rotateSiteWebhookSecret',
    summary: 'Give a webhook endpoint of the site a new signing secret',
    description: 'The new secret is returned only now. For 24 hours every delivery is signed with both the new and the previous secret (two `v1,` signatures in `webhook-signature`), then with the new one alone.',
  })
  @ApiParam(SITE_ID)
  @ApiParam(WEBHOOK_ID)
  @ApiEnvelope(WebhookEndpointSecretDto)
  @ApiErrors(...ACCESS_ERRORS)
  rotateSecret(@CurrentPrincipal() principal: Principal, @Param('siteId', UUID_PARAM) siteId: string, @Param('webhookId', UUID_PARAM) webhookId: string): Promise<WebhookEndpointSecretDto> {
    return this.webhooks.rotateSecret(principal, siteId, webhookId);
  }

  @Post(':webhookId/test')
  @HttpCode(202)
  @RateLimit(SITE_WEBHOOK_RATE_LIMITS.send)
  @ApiOperation({
    operationId: 'sendSiteTestWebhook',
    summary: 'Send a test event to a webhook endpoint of the site',
    description: `A real, signed delivery of the chosen type (${EVENT_TYPES}) carrying a sample payload, with an event id \`evt_test_…\`; follow it in the endpoint's deliveries.`,
  })
  @ApiParam(SITE_ID)
  @ApiParam(WEBHOOK_ID)
  @ApiEnvelope(WebhookDeliveryDataDto, { status: 202 })
  @ApiErrors(...ACCESS_ERRORS, ErrorCode.VALIDATION_ERROR)
  sendTest(
    @CurrentPrincipal() principal: Principal,
    @Param('siteId', UUID_PARAM) siteId: string,
    @Param('webhookId', UUID_PARAM) webhookId: string,
    @Body() body: SendTestWebhookDto,
  ): Promise<WebhookDeliveryDataDto> {
    return this.webhooks.sendTest(principal, siteId, webhookId, body.eventType);
  }

  @Get(':webhookId/deliveries')
  @RateLimit(SITE_WEBHOOK_RATE_LIMITS.read)
  @ApiOperation({ operationId: 'listSiteWebhookDeliveries', summary: 'The endpoint’s latest deliveries (newest first, at most 100; kept 30 days)' })
  @ApiParam(SITE_ID)
  @ApiParam(WEBHOOK_ID)
  @ApiEnvelope(WebhookDeliveryListDto)
  @ApiErrors(...ACCESS_ERRORS)
  deliveries(@CurrentPrincipal() principal: Principal, @Param('siteId', UUID_PARAM) siteId: string, @Param('webhookId', UUID_PARAM) webhookId: string): Promise<WebhookDeliveryListDto> {
    return this.webhooks.deliveriesOf(principal, siteId, webhookId);
  }

  @Post(':webhookId/replay')
  @HttpCode(202)
  @RateLimit(SITE_WEBHOOK_RATE_LIMITS.send)
  @ApiOperation({
    operationId: 'replaySiteWebhookSince',
    summary: 'Send again every finished delivery of the endpoint since a time',
    description: 'Delivered and failed deliveries created at or after `since` are queued again (those still pending are left as they are).',
  })
  @ApiParam(SITE_ID)
  @ApiParam(WEBHOOK_ID)
  @ApiEnvelope(WebhookReplayedDto, { status: 202 })
  @ApiErrors(...ACCESS_ERRORS, ErrorCode.VALIDATION_ERROR)
  replaySince(
    @CurrentPrincipal() principal: Principal,
    @Param('siteId', UUID_PARAM) siteId: string,
    @Param('webhookId', UUID_PARAM) webhookId: string,
    @Body() body: ReplayWebhookDto,
  ): Promise<WebhookReplayedDto> {
    return this.webhooks.replaySince(principal, siteId, webhookId, body.since);
  }
}
