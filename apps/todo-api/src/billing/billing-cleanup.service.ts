import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import type Stripe from 'stripe';
import { BackgroundWork, PeriodicTask } from '#libs/common';
import type { Transaction } from '#libs/database';
import { BillingRepository, type BillingCleanupRow } from './billing.repository.js';
import { isResourceMissing, isStripeError, STRIPE_CLIENT } from './stripe.client.js';

/**
 * How the Stripe clean-up of a deleted account runs: at once after the deletion (the request
 * waits for it at most `requestWaitMs`, then it goes on in the background), else from the sweep
 * every `intervalMs` on every replica, `batchSize` customers a run, each taken for `leaseSeconds`;
 * a failed attempt is retried after 1 min, doubling, at most every 6 h.
 */
const BILLING_CLEANUP = { requestWaitMs: 2000, intervalMs: 5 * 60_000, batchSize: 20, leaseSeconds: 5 * 60, firstRetrySeconds: 60, maxRetrySeconds: 6 * 3600 } as const;

/**
 * Billing integrity across account deletion. Deleting an account writes, in its transaction, what
 * is left to do at Stripe (billing_cleanups: the customer, its subscription); the deletion never
 * waits on Stripe being up. Then, here: every open Checkout session of the customer is expired (no
 * one can pay it any more), the subscription is canceled and the customer deleted (which also
 * cancels any other subscription it holds). Every step is idempotent (an object already gone or
 * already expired counts as done), so a retry or two replicas at once do no harm; the row goes
 * once all of it is done, and a failure is retried with backoff.
 */
@Injectable()
export class BillingCleanupService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('Billing');
  private readonly timer = new PeriodicTask('Stripe clean-up of deleted accounts', BILLING_CLEANUP.intervalMs, () => this.runDue(), this.logger);
  private readonly pending = new BackgroundWork();

  constructor(
    @Inject(STRIPE_CLIENT) private readonly stripe: Stripe | null,
    private readonly repository: BillingRepository,
  ) {}

  onModuleInit(): void {
    // Without Stripe settings there is nothing to call; a replica that has them does the work.
    if (this.stripe) this.timer.start();
  }

  async onModuleDestroy(): Promise<void> {
    this.timer.stop();
    await this.pending.settled();
  }

  /** Inside the account deletion's transaction: records what is left to do at Stripe; answers the customer, if any. */
  async queue(tx: Transaction, userId: string): Promise<string | undefined> {
    return (await this.repository.queueCleanup(tx, userId))?.providerCustomerId;
  }

  /**
   * After the deletion committed: cleans the customer up now, waiting at most
   * BILLING_CLEANUP.requestWaitMs (the rest goes on in the background). Never throws: what fails
   * is retried by the sweep.
   */
  async runNow(customerId: string): Promise<void> {
    if (!this.stripe) return;
    const work: Promise<void> = this.repository
      .claimDueCleanups(1, BILLING_CLEANUP.leaseSeconds, customerId)
      .then(async ([row]) => {
        if (row) await this.cleanUp(this.stripe!, row);
      })
      .catch((error: Error) => this.logger.warn({ err: error.message }, 'Stripe clean-up of a deleted account left to the sweep'));
    this.pending.track(work);
    let waited: NodeJS.Timeout | undefined;
    await Promise.race([work, new Promise<void>((resolve) => (waited = setTimeout(resolve, BILLING_CLEANUP.requestWaitMs)))]);
    clearTimeout(waited);
  }

  /** The sweep: every due clean-up, batch by batch; answers how many were finished. */
  async runDue(): Promise<number> {
    if (!this.stripe) return 0;
    let finished = 0;
    for (;;) {
      const rows = await this.repository.claimDueCleanups(BILLING_CLEANUP.batchSize, BILLING_CLEANUP.leaseSeconds);
      for (const row of rows) if (await this.cleanUp(this.stripe, row)) finished++;
      if (rows.length < BILLING_CLEANUP.batchSize) return finished;
    }
  }

  /** One customer's clean-up; true when it is done (row deleted), false when it is to be retried. */
  private async cleanUp(stripe: Stripe, row: BillingCleanupRow): Promise<boolean> {
    const customer = row.providerCustomerId;
    try {
      for await (const session of stripe.checkout.sessions.list({ customer, status: 'open', limit: 100 })) {
        await done(() => stripe.checkout.sessions.expire(session.id));
      }
      if (row.providerSubscriptionId) await done(() => stripe.subscriptions.cancel(row.providerSubscriptionId!));
      await done(() => stripe.customers.del(customer));
    } catch (error) {
      const retryInSeconds = Math.min(BILLING_CLEANUP.firstRetrySeconds * 2 ** Math.max(0, row.attempts - 1), BILLING_CLEANUP.maxRetrySeconds);
      const reason = isStripeError(error) ? `${error.type}${error.code ? `/${error.code}` : ''} (${error.statusCode ?? 'no answer'})` : (error as Error).name;
      await this.repository.retryCleanupLater(customer, retryInSeconds, reason);
      this.logger.warn({ customer, attempts: row.attempts, retryInSeconds, reason }, 'Stripe clean-up of a deleted account failed; retrying later');
      return false;
    }
    await this.repository.finishCleanup(customer);
    this.logger.log({ customer }, 'Stripe customer of a deleted account cleaned up');
    return true;
  }
}

/**
 * Runs one clean-up call; an object that is gone (404) or no longer in a state the call applies to
 * (400: a session already expired or completed, a subscription already canceled) counts as done.
 */
async function done(call: () => Promise<unknown>): Promise<void> {
  try {
    await call();
  } catch (error) {
    if (isResourceMissing(error) || (isStripeError(error) && error.statusCode === 400 && error.type === 'StripeInvalidRequestError')) return;
    throw error;
  }
}
