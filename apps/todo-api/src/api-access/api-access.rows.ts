/**
 * Rows of the tables of paid API access, todo-api's alone: API keys and subscriptions (the
 * shared account tables, users and sessions, are in #libs/identity's accounts/account.rows.ts). Select a
 * table's row with its `*_COLUMNS` list; test/platform/schema-truth checks the lists.
 */

/** An API key record; the secret itself is never stored, only its SHA-256. */
export interface ApiKeyRow {
  id: string;
  userId: string;
  name: string;
  prefix: string;
  keyHash: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  expiresAt: Date | null;
  revokedAt: Date | null;
}

export const API_KEY_COLUMNS = `id, user_id AS "userId", name, prefix, key_hash AS "keyHash", created_at AS "createdAt",
  last_used_at AS "lastUsedAt", expires_at AS "expiresAt", revoked_at AS "revokedAt"`;

export type SubscriptionStatus =
  | 'none'
  | 'incomplete'
  | 'incomplete_expired'
  | 'trialing'
  | 'active'
  | 'past_due'
  | 'canceled'
  | 'unpaid'
  | 'paused';

/** A user's API access: a paid subscription at the payment provider and/or lifetime beta. */
export interface SubscriptionRow {
  userId: string;
  provider: string | null;
  planCode: string | null;
  status: SubscriptionStatus;
  isBetaLifetime: boolean;
  currentPeriodEnd: Date | null;
  cancelAtPeriodEnd: boolean;
  providerCustomerId: string | null;
  providerSubscriptionId: string | null;
  /** Time of the provider state last applied: older webhook events never overwrite newer state. */
  providerStateAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export const SUBSCRIPTION_COLUMNS = `user_id AS "userId", provider, plan_code AS "planCode", status, is_beta_lifetime AS "isBetaLifetime",
  current_period_end AS "currentPeriodEnd", cancel_at_period_end AS "cancelAtPeriodEnd", provider_customer_id AS "providerCustomerId",
  provider_subscription_id AS "providerSubscriptionId", provider_state_at AS "providerStateAt", created_at AS "createdAt", updated_at AS "updatedAt"`;
