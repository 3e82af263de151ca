import { Body, Controller, Get, HttpCode, Post } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiEnvelope, ApiErrors, CurrentUserId, ErrorCode, RateLimit, UseAuth, type RateLimitOptions } from '#libs/common';
import { BillingService } from './billing.service.js';
import { EmptyBodyDto } from './dto/empty-body.dto.js';
import { NoBodyPipe } from './no-body.pipe.js';
import { CheckoutSessionDto, PortalSessionDto, SubscriptionResultDto, SubscriptionStatusDto } from './dto/subscription.dto.js';

/** Calls that reach Stripe, per user: enough for any real use, not enough to hammer the provider. */
/**
 * Calls to Stripe per user. Fails closed: without the limit one account could spend the platform's
 * Stripe request budget for everyone; billing can wait out a Redis outage.
 */
const PROVIDER_CALLS: RateLimitOptions = { bucket: 'billing-provider', limit: 30, windowSeconds: 60, storeOutage: 'fail-closed' };
const PROVIDER_FAILURES = [ErrorCode.BILLING_UNAVAILABLE, ErrorCode.PAYMENT_PROVIDER_ERROR, ErrorCode.SERVICE_UNAVAILABLE] as const;
const NO_BODY = { required: false, type: EmptyBodyDto, description: 'No body (an empty object is accepted)' };

@ApiTags('Billing')
@Controller('api/v1/billing')
@UseAuth('jwt')
export class BillingController {
  constructor(private readonly billing: BillingService) {}

  @Get('subscription')
  @ApiOperation({ operationId: 'getSubscription', summary: 'Plan, price, whether checkout is available, and the caller’s subscription' })
  @ApiEnvelope(SubscriptionStatusDto)
  @ApiErrors(ErrorCode.AUTH_REQUIRED)
  getSubscription(@CurrentUserId() userId: string): Promise<SubscriptionStatusDto> {
    return this.billing.getStatus(userId);
  }

  @Post('checkout-session')
  @HttpCode(200)
  @RateLimit(PROVIDER_CALLS)
  @ApiOperation({
    operationId: 'createCheckoutSession',
    summary: 'Start a Stripe checkout for the monthly API plan',
    description:
      'Creates the Stripe customer at the first checkout (reused afterwards). API access switches on when Stripe confirms ' +
      'the payment (webhook), not when this call answers. 502 PAYMENT_PROVIDER_ERROR: Stripe refused or failed the call; ' +
      '503 SERVICE_UNAVAILABLE (Retry-After): Stripe could not be reached in time; 503 BILLING_UNAVAILABLE: billing is not configured.',
  })
  @ApiBody(NO_BODY)
  @ApiEnvelope(CheckoutSessionDto)
  @ApiErrors(ErrorCode.AUTH_REQUIRED, ErrorCode.BETA_LIFETIME_ACCESS, ErrorCode.SUBSCRIPTION_ALREADY_ACTIVE, ...PROVIDER_FAILURES)
  createCheckoutSession(@CurrentUserId() userId: string, @Body(NoBodyPipe) _body: unknown): Promise<CheckoutSessionDto> {
    return this.billing.createCheckoutSession(userId);
  }

  @Post('portal-session')
  @HttpCode(200)
  @RateLimit(PROVIDER_CALLS)
  @ApiOperation({ operationId: 'createPortalSession', summary: 'Open the Stripe customer portal (payment method, invoices, cancellation)' })
  @ApiBody(NO_BODY)
  @ApiEnvelope(PortalSessionDto)
  @ApiErrors(ErrorCode.AUTH_REQUIRED, ErrorCode.CUSTOMER_NOT_FOUND, ...PROVIDER_FAILURES)
  createPortalSession(@CurrentUserId() userId: string, @Body(NoBodyPipe) _body: unknown): Promise<PortalSessionDto> {
    return this.billing.createPortalSession(userId);
  }

  @Post('subscription/cancel')
  @HttpCode(200)
  @RateLimit(PROVIDER_CALLS)
  @ApiOperation({
    operationId: 'cancelSubscription',
    summary: 'Cancel the paid subscription at the end of the current period',
    description: 'Access continues until currentPeriodEnd. Repeating the call is harmless.',
  })
  @ApiBody(NO_BODY)
  @ApiEnvelope(SubscriptionResultDto)
  @ApiErrors(ErrorCode.AUTH_REQUIRED, ErrorCode.SUBSCRIPTION_NOT_FOUND, ...PROVIDER_FAILURES)
  cancel(@CurrentUserId() userId: string, @Body(NoBodyPipe) _body: unknown): Promise<SubscriptionResultDto> {
    return this.billing.cancel(userId);
  }

  @Post('subscription/reactivate')
  @HttpCode(200)
  @RateLimit(PROVIDER_CALLS)
  @ApiOperation({
    operationId: 'reactivateSubscription',
    summary: 'Undo a pending cancellation of an active subscription',
    description: 'Only an active (or trialing) subscription can be reactivated; an ended one needs a new checkout (409).',
  })
  @ApiBody(NO_BODY)
  @ApiEnvelope(SubscriptionResultDto)
  @ApiErrors(ErrorCode.AUTH_REQUIRED, ErrorCode.SUBSCRIPTION_NOT_FOUND, ErrorCode.SUBSCRIPTION_NOT_REACTIVATABLE, ...PROVIDER_FAILURES)
  reactivate(@CurrentUserId() userId: string, @Body(NoBodyPipe) _body: unknown): Promise<SubscriptionResultDto> {
    return this.billing.reactivate(userId);
  }
}
