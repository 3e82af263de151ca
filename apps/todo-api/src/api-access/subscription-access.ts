import type { SubscriptionStatus } from './api-access.rows.js';

/** Paid statuses that switch API access on. */
const ACCESS_GRANTING_STATUSES: readonly SubscriptionStatus[] = ['active', 'trialing'];

/**
 * The one rule for API access: a paid active/trialing subscription, or lifetime beta. Its SQL
 * form is `apiAccessSql` below; test/platform/rules-once runs both over the same rows.
 */
export function hasApiAccess(subscription: { status: string; isBetaLifetime: boolean } | null | undefined): boolean {
  if (!subscription) return false;
  return subscription.isBetaLifetime || ACCESS_GRANTING_STATUSES.includes(subscription.status as SubscriptionStatus);
}

/** A key works until it is revoked or its expiry passes. SQL form: `liveApiKeySql`. */
export function isLiveApiKey(key: { revokedAt: Date | null; expiresAt: Date | null }, now: Date): boolean {
  return !key.revokedAt && !(key.expiresAt && new Date(key.expiresAt) <= now);
}

/** Renders a value as a statement parameter and answers its placeholder (`$n`). */
export type SqlParameter = (value: unknown) => string;

/** hasApiAccess in SQL, over the columns named (a missing subscription row reads as NULLs). */
export function apiAccessSql(columns: { status: string; isBetaLifetime: string }, parameter: SqlParameter): string {
  return `(COALESCE(${columns.isBetaLifetime}, false) OR COALESCE(${columns.status} = ANY(${parameter(ACCESS_GRANTING_STATUSES)}::text[]), false))`;
}

/** isLiveApiKey in SQL, over the columns named. */
export function liveApiKeySql(columns: { revokedAt: string; expiresAt: string }): string {
  return `(${columns.revokedAt} IS NULL AND (${columns.expiresAt} IS NULL OR ${columns.expiresAt} > now()))`;
}
