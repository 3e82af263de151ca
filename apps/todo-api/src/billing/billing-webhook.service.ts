import { Inject, Injectable, Logger } from '@nestjs/common';
import type Stripe from 'stripe';
import { CredentialRevocations } from '#libs/identity';
import { AppException, ErrorCode, isUuid } from '#libs/common';
import { SecurityActivityService } from '#libs/identity';
import { BILLING_CONFIG, type BillingConfig } from './billing.config.js';
import { BillingRepository } from './billing.repository.js';
import { BillingService } from './billing.service.js';
import type { WebhookReceivedDto } from './dto/subscription.dto.js';
import { isResourceMissing, paymentProviderException } from './stripe.client.js';
import { LIVE_STATUSES, stateOfStripeSubscription, stripeIdOf, type ProviderSubscriptionState } from './subscription-state.js';

/** Event types that change a subscription; every other type is acknowledged and ignored. */
const HANDLED_EVENT_TYPES = new Set([
  'checkout.session.completed',
  'customer.subscription.created',
  'customer.subscription.updated',
  'customer.subscription.deleted',
  'invoice.payment_failed',
]);

interface PlannedChange {
  userId: string;
  state: ProviderSubscriptionState;
  observedAt: Date;
}

/**
 * Stripe webhooks. The signature is checked on the raw body with the SDK. Each event id takes
 * effect once (recorded in the same transaction as its change). Events are not trusted for
 * ordering: the subscription is re-read from Stripe and stored with the time it was read, and
 * an older reading never overwrites a newer one, so any delivery order ends in Stripe's state.
 */
@Injectable()
export class BillingWebhookService {
  private readonly logger = new Logger(BillingWebhookService.name);

  constructor(
    @Inject(BILLING_CONFIG) private readonly config: BillingConfig,
    private readonly billing: BillingService,
    private readonly repository: BillingRepository,
    private readonly revocations: CredentialRevocations,
    private readonly activity: SecurityActivityService,
  ) {}

  async receive(rawBody: Buffer | undefined, signature: string | string[] | undefined): Promise<WebhookReceivedDto> {
    const stripe = this.billing.requireStripe();
    if (!rawBody || typeof signature !== 'string' || signature === '') {
      throw new AppException(ErrorCode.INVALID_SIGNATURE, 'A JSON body signed in the Stripe-Signature header is required');
    }
    let event: Stripe.Event;
    try {
      event = stripe.webhooks.constructEvent(rawBody, signature, this.config.stripe!.webhookSecret);
    } catch {
      throw new AppException(ErrorCode.INVALID_SIGNATURE, 'The webhook signature is missing, invalid or too old');
    }
    if (!HANDLED_EVENT_TYPES.has(event.type)) return { received: true, duplicate: false };
    if (await this.repository.isEventProcessed(event.id)) return { received: true, duplicate: true };

    // Stripe is read outside the transaction: no database connection waits on the network.
    const change = await this.planChange(stripe, event);
    const applied = await this.repository.transaction(async (tx) => {
      if (!(await this.repository.claimEvent(tx, event.id, event.type))) return false;
      if (change) {
        const row = await this.repository.applyProviderState(tx, change.userId, change.state, change.observedAt);
        await this.activity.record(tx, change.userId, 'subscription_changed', { details: { status: row.status, cancelAtPeriodEnd: row.cancelAtPeriodEnd, event: event.type } });
      }
      await this.repository.pruneProcessedEvents(tx);
      return true;
    });
    if (applied) this.logger.log({ eventId: event.id, type: event.type, userId: change?.userId, status: change?.state.status }, 'Stripe event applied');
    // A lapsed subscription ends API access: open streams re-check (an unchanged one costs a lookup).
    if (applied && change) await this.revocations.announce(change.userId);
    return { received: true, duplicate: !applied };
  }

  private async planChange(stripe: Stripe, event: Stripe.Event): Promise<PlannedChange | undefined> {
    const object = event.data.object as unknown as Record<string, any>;
    let subscriptionId: string | undefined;
    let hintedUserId: string | undefined;
    let fallback: Stripe.Subscription | undefined;
    switch (event.type) {
      case 'checkout.session.completed':
        if (object.mode !== 'subscription') return undefined;
        subscriptionId = stripeIdOf(object.subscription);
        hintedUserId = object.client_reference_id ?? object.metadata?.userId;
        break;
      case 'invoice.payment_failed':
        subscriptionId = stripeIdOf(object.parent?.subscription_details?.subscription ?? object.subscription);
        break;
      default:
        subscriptionId = object.id;
        fallback = object as Stripe.Subscription;
    }
    if (!subscriptionId) return undefined;

    const read = await this.readSubscription(stripe, subscriptionId);
    const subscription = read ?? fallback;
    if (!subscription) return undefined;
    const state = stateOfStripeSubscription(subscription);
    // A reading from Stripe is as new as the moment it arrived; an event's own copy only as its creation.
    const observedAt = read ? new Date() : new Date(event.created * 1000);
    const userId = await this.ownerOf(state, hintedUserId);
    if (!userId) {
      if (LIVE_STATUSES.includes(state.status) && (await this.madeByUs(state, hintedUserId))) {
        await this.cancelOrphan(stripe, state.providerSubscriptionId, event.id);
        return undefined;
      }
      this.logger.warn({ eventId: event.id, type: event.type, subscriptionId }, 'Stripe event for no known user; ignored');
      return undefined;
    }
    return { userId, state, observedAt };
  }

  /**
   * Whether a subscription of no known account came from our checkout: it names an account id
   * (every checkout puts the user id in the session and the subscription), or its customer is a
   * deleted account's whose clean-up is pending. Others (made by hand in the Stripe dashboard, for
   * something else) are not ours to cancel.
   */
  private async madeByUs(state: ProviderSubscriptionState, hintedUserId: string | undefined): Promise<boolean> {
    if (isUuid(hintedUserId) || isUuid(state.metadataUserId)) return true;
    return state.providerCustomerId !== '' && (await this.repository.isCleanupPending(state.providerCustomerId));
  }

  /**
   * A live subscription whose account is gone (deleted, e.g. before its open checkout was paid)
   * is canceled at Stripe at once: nothing would ever end it and the card would go on being
   * charged. Idempotent: a subscription already canceled or gone counts as done (a later event
   * re-reads it as ended and calls nothing). A Stripe failure answers 5xx, so Stripe delivers
   * the event again.
   */
  private async cancelOrphan(stripe: Stripe, subscriptionId: string, eventId: string): Promise<void> {
    try {
      await stripe.subscriptions.cancel(subscriptionId);
    } catch (error) {
      if (isResourceMissing(error)) return;
      const now = await this.readSubscription(stripe, subscriptionId);
      if (now && LIVE_STATUSES.includes(now.status)) throw paymentProviderException(error, 'subscriptions.cancel');
      return;
    }
    this.logger.warn({ eventId, subscriptionId }, 'Live Stripe subscription of no known account canceled');
  }

  private async readSubscription(stripe: Stripe, subscriptionId: string): Promise<Stripe.Subscription | undefined> {
    try {
      return await stripe.subscriptions.retrieve(subscriptionId);
    } catch (error) {
      if (isResourceMissing(error)) return undefined;
      // Answering 5xx makes Stripe deliver the event again later.
      throw paymentProviderException(error, 'subscriptions.retrieve');
    }
  }

  /** The user we attached at checkout (metadata), else whoever holds the subscription or customer. */
  private async ownerOf(state: ProviderSubscriptionState, hintedUserId: string | undefined): Promise<string | undefined> {
    for (const candidate of [hintedUserId, state.metadataUserId]) {
      if (isUuid(candidate)) {
        const found = await this.repository.findUserId({ userId: candidate });
        if (found) return found;
      }
    }
    return this.repository.findUserIdByProvider(state.providerSubscriptionId, state.providerCustomerId || undefined);
  }
}
