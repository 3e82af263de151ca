import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type Stripe from 'stripe';
import { AppException, ErrorCode, trimTrailingSlashes } from '#libs/common';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { UsersService } from '#libs/identity';
import { BILLING_CONFIG, type BillingConfig } from './billing.config.js';
import { BillingRepository } from './billing.repository.js';
import { CheckoutSessionDto, PortalSessionDto, SubscriptionDto, SubscriptionResultDto, SubscriptionStatusDto, toSubscriptionDto } from './dto/subscription.dto.js';
import { callStripe, isResourceMissing, paymentProviderException, STRIPE_CLIENT } from './stripe.client.js';
import { LIVE_STATUSES, MONTHLY_PRICE_USD, PLAN_CODE, publishedStatusOf, stateOfStripeSubscription } from './subscription-state.js';

const PAID_ACCESS_STATUSES = ['active', 'trialing'];

/**
 * The user's side of billing: status, Stripe checkout and portal, cancel and reactivate.
 * Local state changes only after Stripe has accepted a change, so a failed call leaves
 * nothing half-written.
 */
@Injectable()
export class BillingService {
  private readonly publicBaseUrl: string;

  constructor(
    @Inject(STRIPE_CLIENT) private readonly stripe: Stripe | null,
    @Inject(APP_CONFIG) config: AppConfig,
    @Inject(BILLING_CONFIG) private readonly billingConfig: BillingConfig,
    private readonly repository: BillingRepository,
    private readonly users: UsersService,
  ) {
    this.publicBaseUrl = trimTrailingSlashes(config.publicBaseUrl);
  }

  get checkoutEnabled(): boolean {
    return this.stripe !== null;
  }

  /** The Stripe client, or 503 BILLING_UNAVAILABLE when billing is not configured. */
  requireStripe(): Stripe {
    if (!this.stripe) throw new AppException(ErrorCode.BILLING_UNAVAILABLE, 'Billing is not configured on this server');
    return this.stripe;
  }

  async getStatus(userId: string): Promise<SubscriptionStatusDto> {
    return {
      planCode: PLAN_CODE,
      monthlyPriceUsd: MONTHLY_PRICE_USD,
      checkoutEnabled: this.checkoutEnabled,
      subscription: toSubscriptionDto(await this.repository.findSubscription(userId)),
    };
  }

  async createCheckoutSession(userId: string): Promise<CheckoutSessionDto> {
    const stripe = this.requireStripe();
    const row = await this.repository.findSubscription(userId);
    if (row?.isBetaLifetime) throw new AppException(ErrorCode.BETA_LIFETIME_ACCESS, 'Lifetime beta access already includes API access');
    if (row && PAID_ACCESS_STATUSES.includes(row.status)) {
      throw new AppException(ErrorCode.SUBSCRIPTION_ALREADY_ACTIVE, 'The subscription is already active');
    }
    const email = (await this.users.findById(userId))?.email;
    if (!email) throw new AppException(ErrorCode.AUTH_REQUIRED, 'The account no longer exists');

    const stored = row?.providerCustomerId ?? undefined;
    const customerId = (stored && (await this.customerStillExists(stripe, stored)) ? stored : undefined) ?? (await this.createCustomer(stripe, userId, email, stored));
    const session = await callStripe('checkout.sessions.create', () =>
      stripe.checkout.sessions.create({
        mode: 'subscription',
        customer: customerId,
        client_reference_id: userId,
        metadata: { userId },
        subscription_data: { metadata: { userId } },
        line_items: [{ price: this.billingConfig.stripe!.priceId, quantity: 1 }],
        // Back to the account page's subscription section (the account pages, issue 29).
        success_url: `${this.publicBaseUrl}/account?checkout=success#subscription`,
        cancel_url: `${this.publicBaseUrl}/account?checkout=cancel#subscription`,
      }),
    );
    if (!session.url) throw paymentProviderException(new Error('checkout session without url'), 'checkout.sessions.create');
    // Only now is the customer worth remembering: the whole checkout start succeeded.
    await this.repository.linkCustomer(userId, customerId, stored !== customerId ? stored : undefined);
    return { checkoutUrl: session.url, sessionId: session.id };
  }

  async createPortalSession(userId: string): Promise<PortalSessionDto> {
    const stripe = this.requireStripe();
    const customer = (await this.repository.findSubscription(userId))?.providerCustomerId;
    if (!customer) throw new AppException(ErrorCode.CUSTOMER_NOT_FOUND, 'There is no billing customer yet; start a checkout first');
    try {
      const session = await stripe.billingPortal.sessions.create({ customer, return_url: `${this.publicBaseUrl}/account#subscription` });
      return { portalUrl: session.url, sessionId: session.id };
    } catch (error) {
      if (isResourceMissing(error)) throw new AppException(ErrorCode.CUSTOMER_NOT_FOUND, 'The billing customer no longer exists at the payment provider');
      throw paymentProviderException(error, 'billingPortal.sessions.create');
    }
  }

  /** Sets cancel-at-period-end at Stripe, then records what Stripe answered. */
  async cancel(userId: string): Promise<SubscriptionResultDto> {
    const stripe = this.requireStripe();
    const row = await this.repository.findSubscription(userId);
    if (!row?.providerSubscriptionId || !LIVE_STATUSES.includes(row.status)) {
      throw new AppException(ErrorCode.SUBSCRIPTION_NOT_FOUND, 'There is no paid subscription to cancel');
    }
    return { subscription: await this.setCancelAtPeriodEnd(stripe, userId, row.providerSubscriptionId, true) };
  }

  /** Undoes a pending cancellation of an active subscription. */
  async reactivate(userId: string): Promise<SubscriptionResultDto> {
    const stripe = this.requireStripe();
    const row = await this.repository.findSubscription(userId);
    if (!row?.providerSubscriptionId) throw new AppException(ErrorCode.SUBSCRIPTION_NOT_FOUND, 'There is no paid subscription to reactivate');
    if (!PAID_ACCESS_STATUSES.includes(row.status)) {
      throw new AppException(ErrorCode.SUBSCRIPTION_NOT_REACTIVATABLE, `A ${publishedStatusOf(row.status)} subscription cannot be reactivated; start a new checkout`);
    }
    return { subscription: await this.setCancelAtPeriodEnd(stripe, userId, row.providerSubscriptionId, false) };
  }

  private async setCancelAtPeriodEnd(stripe: Stripe, userId: string, subscriptionId: string, cancel: boolean): Promise<SubscriptionDto> {
    let updated: Stripe.Subscription;
    try {
      updated = await stripe.subscriptions.update(subscriptionId, { cancel_at_period_end: cancel });
    } catch (error) {
      if (isResourceMissing(error)) throw new AppException(ErrorCode.SUBSCRIPTION_NOT_FOUND, 'The subscription no longer exists at the payment provider');
      throw paymentProviderException(error, 'subscriptions.update');
    }
    const observedAt = new Date();
    const row = await this.repository.transaction((tx) =>
      this.repository.applyProviderState(tx, userId, stateOfStripeSubscription(updated), observedAt),
    );
    return toSubscriptionDto(row);
  }

  private async customerStillExists(stripe: Stripe, customerId: string): Promise<boolean> {
    try {
      const customer = await stripe.customers.retrieve(customerId);
      return !(customer as Stripe.DeletedCustomer).deleted;
    } catch (error) {
      if (isResourceMissing(error)) return false;
      throw paymentProviderException(error, 'customers.retrieve');
    }
  }

  /**
   * Creates the Stripe customer at the first checkout. The idempotency key makes a retry after a
   * failed checkout start (within Stripe's 24 h) return the same customer instead of a second one.
   */
  private createCustomer(stripe: Stripe, userId: string, email: string, replacing?: string): Promise<string> {
    const idempotencyKey = `customer-${createHash('sha256').update(`${userId}\n${email.toLowerCase()}\n${replacing ?? ''}`).digest('hex').slice(0, 40)}`;
    return callStripe('customers.create', async () => (await stripe.customers.create({ email, metadata: { userId } }, { idempotencyKey })).id);
  }
}
