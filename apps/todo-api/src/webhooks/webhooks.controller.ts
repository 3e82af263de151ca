import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { ApiEnvelope, ApiErrors, CurrentUserId, ErrorCode, RateLimit, UseAuth, UUID_PARAM } from '#libs/common';
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
  WebhookEndpointsService,
  WebhookReplayedDto,
  webhookRateLimits,
} from '#libs/webhooks';
import { MAX_WEBHOOKS_PER_ACCOUNT, TODO_WEBHOOK_EVENTS } from './todo-webhook-events.js';

/** Budgets under this app's bucket names (README: Every limit). */
const WEBHOOK_RATE_LIMITS = webhookRateLimits('webhooks');

const ACCESS_ERRORS = [ErrorCode.AUTH_REQUIRED, ErrorCode.INVALID_API_KEY, ErrorCode.SUBSCRIPTION_REQUIRED, ErrorCode.RATE_LIMITED] as const;
const EVENT_TYPES = Object.keys(TODO_WEBHOOK_EVENTS).join(', ');
const WEBHOOK_ID = { name: 'webhookId', format: 'uuid' } as const;

@ApiTags('Webhooks')
@Controller('api/v1/webhooks')
@UseAuth('jwt-or-api-key')
export class WebhooksController {
  constructor(private readonly webhooks: WebhookEndpointsService) {}

  @Post()
  @RateLimit(WEBHOOK_RATE_LIMITS.manage)
  @ApiOperation({
    operationId: 'createWebhook',
    summary: 'Register a webhook endpoint for your todo events',
    description:
      `Event types: ${EVENT_TYPES} (eventTypes empty or absent: all). Each change is POSTed signed (Standard Webhooks: ` +
      '`webhook-id`, `webhook-timestamp`, `webhook-signature`). The signing secret (`whsec_…`) is returned only in this answer. ' +
      `The URL must be https (production) and resolve to a public address. At most ${MAX_WEBHOOKS_PER_ACCOUNT} endpoints per account (403 QUOTA_EXCEEDED).`,
  })
  @ApiEnvelope(WebhookEndpointSecretDto, { status: 201 })
  @ApiErrors(...ACCESS_ERRORS, ErrorCode.VALIDATION_ERROR, ErrorCode.QUOTA_EXCEEDED)
  create(@CurrentUserId() userId: string, @Body() body: CreateWebhookDto): Promise<WebhookEndpointSecretDto> {
    return this.webhooks.create(userId, body);
  }

  @Get()
  @RateLimit(WEBHOOK_RATE_LIMITS.read)
  @ApiOperation({ operationId: 'listWebhooks', summary: 'Your webhook endpoints (never their secrets)' })
  @ApiEnvelope(WebhookEndpointListDto)
  @ApiErrors(...ACCESS_ERRORS)
  list(@CurrentUserId() userId: string): Promise<WebhookEndpointListDto> {
    return this.webhooks.list(userId);
  }

  @Post('deliveries/:deliveryId/replay')
  @HttpCode(202)
  @RateLimit(WEBHOOK_RATE_LIMITS.send)
  @ApiOperation({ operationId: 'replayWebhookDelivery', summary: 'Send a delivery again', description: 'Queues it now with a fresh round of retries (same event id and payload, new signature).' })
  @ApiParam({ name: 'deliveryId', format: 'uuid' })
  @ApiEnvelope(WebhookDeliveryDataDto, { status: 202 })
  @ApiErrors(...ACCESS_ERRORS, ErrorCode.NOT_FOUND)
  replayDelivery(@CurrentUserId() userId: string, @Param('deliveryId', UUID_PARAM) deliveryId: string): Promise<WebhookDeliveryDataDto> {
    return this.webhooks.replay(userId, deliveryId);
  }

  @Get(':webhookId')
  @RateLimit(WEBHOOK_RATE_LIMITS.read)
  @ApiOperation({ operationId: 'getWebhook', summary: 'One webhook endpoint' })
  @ApiParam(WEBHOOK_ID)
  @ApiEnvelope(WebhookEndpointDataDto)
  @ApiErrors(...ACCESS_ERRORS, ErrorCode.NOT_FOUND)
  get(@CurrentUserId() userId: string, @Param('webhookId', UUID_PARAM) webhookId: string): Promise<WebhookEndpointDataDto> {
    return this.webhooks.get(userId, webhookId);
  }

  @Patch(':webhookId')
  @RateLimit(WEBHOOK_RATE_LIMITS.manage)
  @ApiOperation({ operationId: 'updateWebhook', summary: 'Change a webhook endpoint', description: '`enabled: true` re-enables an endpoint disabled by a 410 answer.' })
  @ApiParam(WEBHOOK_ID)
  @ApiEnvelope(WebhookEndpointDataDto)
  @ApiErrors(...ACCESS_ERRORS, ErrorCode.VALIDATION_ERROR, ErrorCode.NOT_FOUND)
  update(@CurrentUserId() userId: string, @Param('webhookId', UUID_PARAM) webhookId: string, @Body() body: UpdateWebhookDto): Promise<WebhookEndpointDataDto> {
    return this.webhooks.update(userId, webhookId, body);
  }

  @Delete(':webhookId')
  @RateLimit(WEBHOOK_RATE_LIMITS.manage)
  @ApiOperation({ operationId: 'deleteWebhook', summary: 'Delete a webhook endpoint and its deliveries' })
  @ApiParam(WEBHOOK_ID)
  @ApiEnvelope(WebhookEndpointDeletedDto)
  @ApiErrors(...ACCESS_ERRORS, ErrorCode.NOT_FOUND)
  delete(@CurrentUserId() userId: string, @Param('webhookId', UUID_PARAM) webhookId: string): Promise<WebhookEndpointDeletedDto> {
    return this.webhooks.delete(userId, webhookId);
  }

  @Post(':webhookId/rotate-secret')
  @HttpCode(200)
  @RateLimit(WEBHOOK_RATE_LIMITS.manage)
  @ApiOperation({
    operationId: 'rotateWebhookSecret',
    summary: 'Give a webhook endpoint a new signing secret',
    description: 'The new secret is returned only now. For 24 hours every delivery is signed with both the new and the previous secret (two `v1,` signatures in `webhook-signature`), then with the new one alone.',
  })
  @ApiParam(WEBHOOK_ID)
  @ApiEnvelope(WebhookEndpointSecretDto)
  @ApiErrors(...ACCESS_ERRORS, ErrorCode.NOT_FOUND)
  rotateSecret(@CurrentUserId() userId: string, @Param('webhookId', UUID_PARAM) webhookId: string): Promise<WebhookEndpointSecretDto> {
    return this.webhooks.rotateSecret(userId, webhookId);
  }

  @Post(':webhookId/test')
  @HttpCode(202)
  @RateLimit(WEBHOOK_RATE_LIMITS.send)
  @ApiOperation({
    operationId: 'sendTestWebhook',
    summary: 'Send a test event to a webhook endpoint',
    description: `A real, signed delivery of the chosen type (${EVENT_TYPES}) carrying a sample payload, with an event id \`evt_test_…\`; follow it in the endpoint's deliveries.`,
  })
  @ApiParam(WEBHOOK_ID)
  @ApiEnvelope(WebhookDeliveryDataDto, { status: 202 })
  @ApiErrors(...ACCESS_ERRORS, ErrorCode.VALIDATION_ERROR, ErrorCode.NOT_FOUND)
  sendTest(@CurrentUserId() userId: string, @Param('webhookId', UUID_PARAM) webhookId: string, @Body() body: SendTestWebhookDto): Promise<WebhookDeliveryDataDto> {
    return this.webhooks.sendTest(userId, webhookId, body.eventType);
  }

  @Get(':webhookId/deliveries')
  @RateLimit(WEBHOOK_RATE_LIMITS.read)
  @ApiOperation({ operationId: 'listWebhookDeliveries', summary: 'The endpoint’s latest deliveries (newest first, at most 100; kept 30 days)' })
  @ApiParam(WEBHOOK_ID)
  @ApiEnvelope(WebhookDeliveryListDto)
  @ApiErrors(...ACCESS_ERRORS, ErrorCode.NOT_FOUND)
  deliveries(@CurrentUserId() userId: string, @Param('webhookId', UUID_PARAM) webhookId: string): Promise<WebhookDeliveryListDto> {
    return this.webhooks.deliveriesOf(userId, webhookId);
  }

  @Post(':webhookId/replay')
  @HttpCode(202)
  @RateLimit(WEBHOOK_RATE_LIMITS.send)
  @ApiOperation({ operationId: 'replayWebhookSince', summary: 'Send again every finished delivery of the endpoint since a time', description: 'Delivered and failed deliveries created at or after `since` are queued again (those still pending are left as they are).' })
  @ApiParam(WEBHOOK_ID)
  @ApiEnvelope(WebhookReplayedDto, { status: 202 })
  @ApiErrors(...ACCESS_ERRORS, ErrorCode.VALIDATION_ERROR, ErrorCode.NOT_FOUND)
  replaySince(@CurrentUserId() userId: string, @Param('webhookId', UUID_PARAM) webhookId: string, @Body() body: ReplayWebhookDto): Promise<WebhookReplayedDto> {
    return this.webhooks.replaySince(userId, webhookId, body.since);
  }
}
