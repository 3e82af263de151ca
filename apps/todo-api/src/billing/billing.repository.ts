import { Injectable } from '@nestjs/common';
import { canonicalEmail } from '#libs/identity';
import { Database, type Transaction } from '#libs/database';
import { SUBSCRIPTION_COLUMNS, type SubscriptionRow } from '../api-access/api-access.rows.js';
import { LIVE_STATUSES, PLAN_CODE, PROVIDER_STRIPE, type ProviderSubscriptionState } from './subscription-state.js';

export type BetaAccessAction = 'grant' | 'revoke';

/** An account that holds or held lifetime beta (GET /api/v1/billing/beta). */
export interface BetaGrantRow {
  userId: string;
  email: string;
  isBetaLifetime: boolean;
  /** The newest grant that changed anything; for a holder granted outside the admin routes (no audit entry), when its subscription row last changed. */
  grantedAt: Date;
  /** grantedAt in full precision, for the cursor. */
  grantedAtKey: string;
}

/** Where a page of grants starts: after this account in newest-grant-first order. */
export interface BetaGrantKeyset {
  grantedAtKey: string;
  userId: string;
}

/** One row of beta_access_audit. */
export interface BetaAuditRow {
  userId: string;
  action: BetaAccessAction;
  changed: boolean;
  requestId: string | null;
  createdAt: Date;
}

/** Accounts with a grant that changed something, or holding beta now; each with its newest such grant. */
const BETA_GRANTS = `
  SELECT u.id AS "userId", u.email, COALESCE(h.user_id IS NOT NULL, false) AS "isBetaLifetime",
         COALESCE(g.granted_at, h.updated_at) AS "grantedAt", COALESCE(g.granted_at, h.updated_at)::text AS "grantedAtKey"
  FROM (SELECT user_id, max(created_at) AS granted_at FROM beta_access_audit WHERE action = 'grant' AND changed GROUP BY user_id) g
  FULL JOIN (SELECT user_id, updated_at FROM subscriptions WHERE is_beta_lifetime) h ON h.user_id = g.user_id
  JOIN users u ON u.id = COALESCE(g.user_id, h.user_id)`;

/** What a deleted account left to do at Stripe (table billing_cleanups): only Stripe's ids. */
export interface BillingCleanupRow {
  providerCustomerId: string;
  providerSubscriptionId: string | null;
  /** Attempts started, this one included. */
  attempts: number;
}

const BILLING_CLEANUP_COLUMNS = `provider_customer_id AS "providerCustomerId", provider_subscription_id AS "providerSubscriptionId", attempts`;

/** Subscriptions, processed webhook events and the beta-access audit log. */
@Injectable()
export class BillingRepository {
  constructor(private readonly sql: Database) {}

  transaction<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
    return this.sql.transaction(work);
  }

  async findSubscription(userId: string): Promise<SubscriptionRow | null> {
    const rows: SubscriptionRow[] = await this.sql.query(`SELECT ${SUBSCRIPTION_COLUMNS} FROM subscriptions WHERE user_id = $1`, [userId]);
    return rows[0] ?? null;
  }


  /** The id of the user named by id or by e-mail (in its canonical form), if it exists. */
  async findUserId(by: { userId?: string; email?: string }): Promise<string | undefined> {
    const rows: Array<{ id: string }> = by.userId
      ? await this.sql.query(`SELECT id FROM users WHERE id = $1`, [by.userId])
      : await this.sql.query(`SELECT id FROM users WHERE email_canonical = $1`, [canonicalEmail(by.email!)]);
    return rows[0]?.id;
  }

  /** The user a Stripe subscription belongs to: by the subscription first, then by the customer. */
  async findUserIdByProvider(providerSubscriptionId: string | undefined, providerCustomerId: string | undefined): Promise<string | undefined> {
    const rows: Array<{ user_id: string }> = await this.sql.query(
      `SELECT user_id FROM subscriptions
       WHERE provider_subscription_id = $1 OR provider_customer_id = $2
       ORDER BY (provider_subscription_id = $1) DESC NULLS LAST
       LIMIT 1`,
      [providerSubscriptionId ?? null, providerCustomerId ?? null],
    );
    return rows[0]?.user_id;
  }

  /**
   * Records the user's Stripe customer. An existing link is kept unless `replacing` names it
   * (it no longer exists at Stripe), so concurrent checkouts cannot swap customers.
   */
  async linkCustomer(userId: string, providerCustomerId: string, replacing?: string): Promise<void> {
    await this.sql.query(
      `INSERT INTO subscriptions (user_id, provider, provider_customer_id) VALUES ($1, $2, $3)
       ON CONFLICT (user_id) DO UPDATE SET
         provider = COALESCE(subscriptions.provider, EXCLUDED.provider),
         provider_customer_id = CASE
           WHEN subscriptions.provider_customer_id IS NULL OR subscriptions.provider_customer_id = $4 THEN EXCLUDED.provider_customer_id
           ELSE subscriptions.provider_customer_id END,
         updated_at = now()`,
      [userId, PROVIDER_STRIPE, providerCustomerId, replacing ?? null],
    );
  }

  async isEventProcessed(eventId: string): Promise<boolean> {
    const rows = await this.sql.query(`SELECT 1 FROM billing_webhook_events WHERE event_id = $1`, [eventId]);
    return rows.length > 0;
  }

  /**
   * Marks the event processed inside the caller's transaction; false when it already was.
   * A concurrent delivery of the same id waits on the primary key until this transaction ends,
   * then sees the row: each event takes effect once.
   */
  async claimEvent(tx: Transaction, eventId: string, type: string): Promise<boolean> {
    const rows = await tx.query(
      `INSERT INTO billing_webhook_events (event_id, type) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING event_id`,
      [eventId, type],
    );
    return rows.length > 0;
  }

  /**
   * Forgets event ids older than Stripe could still deliver (it retries for 3 days, and a replayed
   * old delivery fails the signature's 5-minute tolerance anyway).
   */
  async pruneProcessedEvents(tx: Transaction): Promise<void> {
    await tx.query(`DELETE FROM billing_webhook_events WHERE processed_at < now() - interval '30 days'`);
  }

  /**
   * Applies a Stripe subscription state observed at `observedAt`, under a row lock. Never moves
   * backwards: a state older than the one stored is ignored, and an ended subscription does not
   * displace a different one that is still live. Returns the row as it is afterwards.
   */
  async applyProviderState(tx: Transaction, userId: string, state: ProviderSubscriptionState, observedAt: Date): Promise<SubscriptionRow> {
    await tx.query(`INSERT INTO subscriptions (user_id) VALUES ($1) ON CONFLICT (user_id) DO NOTHING`, [userId]);
    const [current] = await tx.query<SubscriptionRow>(`SELECT ${SUBSCRIPTION_COLUMNS} FROM subscriptions WHERE user_id = $1 FOR UPDATE`, [userId]);
    if (!current) throw new Error('subscription row vanished inside its transaction');
    const stale = current.providerStateAt !== null && current.providerStateAt.getTime() > observedAt.getTime();
    const displacesLive =
      current.providerSubscriptionId !== null &&
      current.providerSubscriptionId !== state.providerSubscriptionId &&
      LIVE_STATUSES.includes(current.status) &&
      !LIVE_STATUSES.includes(state.status);
    if (stale || displacesLive) return current;
    const [updated] = await tx.query<SubscriptionRow>(
      `UPDATE subscriptions SET provider = $2, plan_code = $3, status = $4, cancel_at_period_end = $5, current_period_end = $6,
         provider_customer_id = $7, provider_subscription_id = $8, provider_state_at = $9, updated_at = now()
       WHERE user_id = $1 RETURNING ${SUBSCRIPTION_COLUMNS}`,
      [
        userId,
        PROVIDER_STRIPE,
        PLAN_CODE,
        state.status,
        state.cancelAtPeriodEnd,
        state.currentPeriodEnd,
        state.providerCustomerId || current.providerCustomerId,
        state.providerSubscriptionId,
        observedAt,
      ],
    );
    return updated;
  }

  /**
   * Inside the account deletion's transaction: records the clean-up of the account's Stripe
   * customer (due now), if it has one; answers it.
   */
  async queueCleanup(tx: Transaction, userId: string): Promise<BillingCleanupRow | undefined> {
    const rows = await tx.query<BillingCleanupRow>(
      `INSERT INTO billing_cleanups (provider_customer_id, provider_subscription_id)
       SELECT provider_customer_id, provider_subscription_id FROM subscriptions WHERE user_id = $1 AND provider_customer_id IS NOT NULL
       ON CONFLICT (provider_customer_id) DO UPDATE SET
         provider_subscription_id = COALESCE(EXCLUDED.provider_subscription_id, billing_cleanups.provider_subscription_id), next_attempt_at = now()
       RETURNING ${BILLING_CLEANUP_COLUMNS}`,
      [userId],
    );
    return rows[0];
  }

  /**
   * Takes due clean-ups (all of them, or the one of `customerId`) for `leaseSeconds`: they are not
   * due again until then, so a replica running the same sweep skips them. SKIP LOCKED: replicas
   * never wait on each other.
   */
  async claimDueCleanups(limit: number, leaseSeconds: number, customerId?: string): Promise<BillingCleanupRow[]> {
    return this.sql.query<BillingCleanupRow>(
      `UPDATE billing_cleanups SET next_attempt_at = now() + make_interval(secs => $2), attempts = attempts + 1
       WHERE provider_customer_id IN (
         SELECT provider_customer_id FROM billing_cleanups WHERE next_attempt_at <= now() AND ($3::text IS NULL OR provider_customer_id = $3)
         ORDER BY next_attempt_at LIMIT $1 FOR UPDATE SKIP LOCKED)
       RETURNING ${BILLING_CLEANUP_COLUMNS}`,
      [limit, leaseSeconds, customerId ?? null],
    );
  }

  async finishCleanup(customerId: string): Promise<void> {
    await this.sql.query(`DELETE FROM billing_cleanups WHERE provider_customer_id = $1`, [customerId]);
  }

  async retryCleanupLater(customerId: string, delaySeconds: number, error: string): Promise<void> {
    await this.sql.query(`UPDATE billing_cleanups SET next_attempt_at = now() + make_interval(secs => $2), last_error = $3 WHERE provider_customer_id = $1`, [
      customerId,
      delaySeconds,
      error,
    ]);
  }

  /** Whether the customer belonged to a deleted account whose Stripe clean-up is still pending. */
  async isCleanupPending(customerId: string): Promise<boolean> {
    const rows = await this.sql.query(`SELECT 1 FROM billing_cleanups WHERE provider_customer_id = $1`, [customerId]);
    return rows.length > 0;
  }

  /** Sets lifetime beta access; true when that changed anything. */
  async setBetaLifetime(tx: Transaction, userId: string, granted: boolean): Promise<boolean> {
    const rows = granted
      ? await tx.query(
          `INSERT INTO subscriptions (user_id, is_beta_lifetime) VALUES ($1, true)
           ON CONFLICT (user_id) DO UPDATE SET is_beta_lifetime = true, updated_at = now()
           WHERE subscriptions.is_beta_lifetime = false
           RETURNING user_id`,
          [userId],
        )
      : await tx.query(
          `UPDATE subscriptions SET is_beta_lifetime = false, updated_at = now()
           WHERE user_id = $1 AND is_beta_lifetime = true
           RETURNING user_id`,
          [userId],
        );
    return rows.length > 0;
  }

  async recordBetaAudit(tx: Transaction, entry: { userId: string; action: BetaAccessAction; changed: boolean; requestId?: string }): Promise<void> {
    await tx.query(`INSERT INTO beta_access_audit (user_id, action, changed, request_id) VALUES ($1, $2, $3, $4)`, [
      entry.userId,
      entry.action,
      entry.changed,
      entry.requestId ?? null,
    ]);
  }

  /** A page of the accounts that hold or held lifetime beta, newest grant first. */
  pageBetaGrants(limit: number, after: BetaGrantKeyset | undefined): Promise<BetaGrantRow[]> {
    if (!after) {
      return this.sql.query(`SELECT * FROM (${BETA_GRANTS}) grants ORDER BY "grantedAt" DESC, "userId" DESC LIMIT $1`, [limit]);
    }
    return this.sql.query(
      `SELECT * FROM (${BETA_GRANTS}) grants WHERE ("grantedAt", "userId") < ($1::timestamptz, $2::uuid)
       ORDER BY "grantedAt" DESC, "userId" DESC LIMIT $3`,
      [after.grantedAtKey, after.userId, limit],
    );
  }

  /** The newest `perAccount` audit entries of each of these accounts, newest first within each. */
  async betaAuditOf(userIds: readonly string[], perAccount: number): Promise<BetaAuditRow[]> {
    if (userIds.length === 0) return [];
    return this.sql.query(
      `SELECT "userId", action, changed, "requestId", "createdAt" FROM (
         SELECT user_id AS "userId", action, changed, request_id AS "requestId", created_at AS "createdAt",
                row_number() OVER (PARTITION BY user_id ORDER BY created_at DESC, id DESC) AS position
         FROM beta_access_audit WHERE user_id = ANY($1::uuid[])) entries
       WHERE position <= $2
       ORDER BY "userId", position`,
      [userIds, perAccount],
    );
  }
}
