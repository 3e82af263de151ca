import type Stripe from 'stripe';
import type { SubscriptionStatus } from '../api-access/api-access.rows.js';

/** The one plan sold: API access, billed monthly. */
export const PLAN_CODE = 'api_access_monthly';
export const MONTHLY_PRICE_USD = 5;
export const PROVIDER_STRIPE = 'stripe';

/** Statuses published in decisions.md; Stripe's others are folded into the nearest one. */
export type PublishedStatus = Extract<SubscriptionStatus, 'none' | 'incomplete' | 'trialing' | 'active' | 'past_due' | 'canceled' | 'unpaid'>;

/** Statuses of a subscription that still exists at Stripe and may bill again. */
export const LIVE_STATUSES: readonly string[] = ['incomplete', 'trialing', 'active', 'past_due', 'unpaid'];

export function publishedStatusOf(status: string): PublishedStatus {
  switch (status) {
    case 'none':
    case 'incomplete':
    case 'trialing':
    case 'active':
    case 'past_due':
    case 'canceled':
    case 'unpaid':
      return status;
    case 'incomplete_expired':
      return 'canceled';
    case 'paused':
      // A paused subscription collects nothing and grants nothing until it is resumed and paid.
      return 'unpaid';
    default:
      return 'incomplete';
  }
}

/** What we keep of a Stripe subscription. */
export interface ProviderSubscriptionState {
  providerSubscriptionId: string;
  providerCustomerId: string;
  status: PublishedStatus;
  cancelAtPeriodEnd: boolean;
  currentPeriodEnd: Date | null;
  /** The user id we attached at checkout (subscription metadata), when present. */
  metadataUserId?: string;
}

export function stripeIdOf(value: string | { id: string } | null | undefined): string | undefined {
  if (!value) return undefined;
  return typeof value === 'string' ? value : value.id;
}

/** Current period end: on the items since Stripe's 2025 API versions, on the subscription before. */
function periodEndOf(subscription: Stripe.Subscription): Date | null {
  const ends = (subscription.items?.data ?? []).map((item) => item.current_period_end).filter((end): end is number => typeof end === 'number');
  const legacy = (subscription as unknown as { current_period_end?: number }).current_period_end;
  const end = ends.length > 0 ? Math.max(...ends) : legacy;
  return typeof end === 'number' ? new Date(end * 1000) : null;
}

export function stateOfStripeSubscription(subscription: Stripe.Subscription): ProviderSubscriptionState {
  return {
    providerSubscriptionId: subscription.id,
    providerCustomerId: stripeIdOf(subscription.customer) ?? '',
    status: publishedStatusOf(subscription.status),
    cancelAtPeriodEnd: Boolean(subscription.cancel_at_period_end),
    currentPeriodEnd: periodEndOf(subscription),
    metadataUserId: subscription.metadata?.userId,
  };
}
