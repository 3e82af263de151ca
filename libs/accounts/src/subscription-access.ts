import type { SubscriptionStatus } from './account.rows.js';

/** Paid statuses that switch API access on. */
export const ACCESS_GRANTING_STATUSES: readonly SubscriptionStatus[] = ['active', 'trialing'];

/** The one rule for API access: a paid active/trialing subscription, or lifetime beta. */
export function hasApiAccess(subscription: { status: string; isBetaLifetime: boolean } | null | undefined): boolean {
  if (!subscription) return false;
  return subscription.isBetaLifetime || ACCESS_GRANTING_STATUSES.includes(subscription.status as SubscriptionStatus);
}
