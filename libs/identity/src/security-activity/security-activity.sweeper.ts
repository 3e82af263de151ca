import { Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { PeriodicTask } from '#libs/common';
import { SecurityActivityRepository } from './security-activity.repository.js';
import { SECURITY_ACTIVITY_RETENTION } from './security-activity-types.js';

/** How many over-full accounts one run trims (the next run takes the rest). */
const ACCOUNTS_PER_RUN = 100;

/**
 * Bounds the security activity log: every interval, on every replica, entries older than 90 days go, then
 * each account's entries beyond its newest 1000 (failed sign-ins can be provoked by anyone who knows the
 * address: 50 an hour under the login budget). Bounded SKIP LOCKED batches: replicas running it at once
 * skip each other's rows.
 */
@Injectable()
export class SecurityActivitySweeper implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(SecurityActivitySweeper.name);
  private readonly timer = new PeriodicTask('Security activity sweep', SECURITY_ACTIVITY_RETENTION.sweepIntervalMs, () => this.sweep(), this.logger);

  constructor(private readonly repository: SecurityActivityRepository) {}

  onModuleInit(): void {
    this.timer.start();
  }

  onModuleDestroy(): void {
    this.timer.stop();
  }

  /** One sweep; answers how many entries it deleted. */
  async sweep(): Promise<number> {
    const { days, perAccount, batchSize } = SECURITY_ACTIVITY_RETENTION;
    let total = await this.inBatches(() => this.repository.deleteOlderThan(days, batchSize));
    for (const userId of await this.repository.accountsOver(perAccount, ACCOUNTS_PER_RUN)) {
      total += await this.inBatches(() => this.repository.deleteBeyondNewest(userId, perAccount, batchSize));
    }
    return total;
  }

  private async inBatches(deleteBatch: () => Promise<number>): Promise<number> {
    let total = 0;
    for (;;) {
      const deleted = await deleteBatch();
      total += deleted;
      if (deleted < SECURITY_ACTIVITY_RETENTION.batchSize) return total;
    }
  }
}
