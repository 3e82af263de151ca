/**
 * Rows of the account tables as repositories read them. The migrations are the schema; these
 * types and their column lists are the one TypeScript description of each table's row
 * (see CONTRIBUTING, "Schema"). Select a table's row with its `*_COLUMNS` list.
 */

export type Privilege = 'user' | 'admin';

/** An account; shared by both services (the feedback service's site owners are these users). */
export interface UserRow {
  id: string;
  userKey: string;
  name: string | null;
  username: string;
  /** As typed at signup: mail goes here. */
  email: string;
  /** canonicalEmail(email): what identifies the account (unique). */
  emailCanonical: string;
  passwordHash: string;
  privilege: Privilege;
  emailConfirmed: number;
  dateJoined: Date;
  passwordChangedAt: Date;
  updatedAt: Date;
}

export const USER_COLUMNS = `id, user_key AS "userKey", name, username, email, email_canonical AS "emailCanonical",
  password_hash AS "passwordHash", privilege, email_confirmed AS "emailConfirmed", date_joined AS "dateJoined",
  password_changed_at AS "passwordChangedAt", updated_at AS "updatedAt"`;

/** A refresh-token session: one per sign-in. Access tokens carry its id. */
export interface SessionRow {
  id: string;
  userId: string;
  refreshTokenHash: string;
  userAgent: string | null;
  ipAddress: string | null;
  createdAt: Date;
  lastUsedAt: Date | null;
  expiresAt: Date;
  revokedAt: Date | null;
}

export const SESSION_COLUMNS = `id, user_id AS "userId", refresh_token_hash AS "refreshTokenHash", user_agent AS "userAgent",
  ip_address AS "ipAddress", created_at AS "createdAt", last_used_at AS "lastUsedAt", expires_at AS "expiresAt", revoked_at AS "revokedAt"`;

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
