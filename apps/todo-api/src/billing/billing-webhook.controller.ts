import { Controller, HttpCode, Post, Req } from '@nestjs/common';
import { ApiBody, ApiHeader, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { ApiEnvelope, ApiErrors, ErrorCode, Public } from '#libs/common';
import { BillingWebhookService } from './billing-webhook.service.js';
import { WebhookReceivedDto } from './dto/subscription.dto.js';

/** The webhook's path: its raw body is kept for the signature check (createHttpApp's rawBodyPaths). */
export const BILLING_WEBHOOK_PATH = '/api/v1/billing/webhook';

/** The header Stripe signs a delivery in; never logged. */
export const BILLING_WEBHOOK_SIGNATURE_HEADER = 'stripe-signature';

@ApiTags('Billing')
@Controller(BILLING_WEBHOOK_PATH.slice(1))
export class BillingWebhookController {
  constructor(private readonly webhooks: BillingWebhookService) {}

  @Post()
  @Public()
  @HttpCode(200)
  @ApiOperation({
    operationId: 'receiveStripeWebhook',
    summary: 'Stripe webhook receiver (called by Stripe, not by clients)',
    description:
      'Verified on the raw body against the `Stripe-Signature` header (the interface document’s Provider-Signature). ' +
      'Handles checkout.session.completed, customer.subscription.created/updated/deleted and invoice.payment_failed; ' +
      'other event types are acknowledged and ignored. Each event id takes effect once; out-of-order events never move ' +
      'a subscription backwards. 5xx answers make Stripe retry.',
  })
  @ApiHeader({ name: 'Stripe-Signature', required: true, description: 'Stripe webhook signature (t=…,v1=…)' })
  @ApiBody({
    description: 'A Stripe event object, as Stripe sends it',
    schema: {
      type: 'object',
      required: ['id', 'type', 'data'],
      properties: { id: { type: 'string' }, type: { type: 'string' }, data: { type: 'object', additionalProperties: true } },
      additionalProperties: true,
    },
    examples: {
      subscriptionUpdated: {
        summary: 'customer.subscription.updated',
        value: { id: 'evt_1Q2w3E4r5T6y7U8i', object: 'event', type: 'customer.subscription.updated', data: { object: { id: 'sub_1Q2w3E4r', object: 'subscription', status: 'active' } } },
      },
    },
  })
  @ApiEnvelope(WebhookReceivedDto)
  @ApiErrors(ErrorCode.INVALID_SIGNATURE, ErrorCode.BILLING_UNAVAILABLE, ErrorCode.PAYMENT_PROVIDER_ERROR, ErrorCode.SERVICE_UNAVAILABLE)
  receive(@Req() request: Request & { rawBody?: Buffer }): Promise<WebhookReceivedDto> {
    return this.webhooks.receive(request.rawBody, request.headers[BILLING_WEBHOOK_SIGNATURE_HEADER]);
  }
}
