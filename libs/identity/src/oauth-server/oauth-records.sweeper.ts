import { Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { PeriodicTask } from '#libs/common';
import { OAuthRecordsRepository } from './oauth-records.repository.js';

/** How often each replica clears expired authorization-server rows, and how many rows one statement deletes. */
export const OAUTH_RECORDS_SWEEP = { intervalMs: 15 * 60_000, batchSize: 1000 } as const;
/** A registered client no grant holds is deleted this long after its registration (open registration must not fill the table for ever). */
export const OAUTH_UNUSED_CLIENT_TTL_MS = 24 * 60 * 60_000;

/**
 * Clears expired rows of oauth_records (codes, interactions, sessions, refresh tokens, grants past
 * their lifetime), which oidc-provider never deletes itself, and registered clients no grant holds a
 * day after their registration (OAUTH_UNUSED_CLIENT_TTL_MS). Every replica runs it; the repository's
 * batches skip rows another replica is deleting, so running it twice at once is harmless.
 */
@Injectable()
export class OAuthRecordsSweeper implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('OAuth');
  /** Expired records go in bounded SKIP LOCKED batches, every interval on every replica. */
  private readonly timer = new PeriodicTask('OAuth records sweep', OAUTH_RECORDS_SWEEP.intervalMs, async () => {
    await this.sweep();
    await this.sweepUnusedClients();
  }, this.logger);

  constructor(private readonly records: OAuthRecordsRepository) {}

  onModuleInit(): void {
    this.timer.start();
  }

  onModuleDestroy(): void {
    this.timer.stop();
  }

  /** Deletes every expired row, batch by batch; answers how many. */
  async sweep(): Promise<number> {
    return this.inBatches((batchSize) => this.records.deleteExpired(batchSize));
  }

  /** Deletes every registered client unused a day after its registration, batch by batch; answers how many. */
  async sweepUnusedClients(now = new Date()): Promise<number> {
    const issuedBefore = new Date(now.getTime() - OAUTH_UNUSED_CLIENT_TTL_MS);
    return this.inBatches((batchSize) => this.records.deleteUnusedClients(issuedBefore, batchSize));
  }

  /** Runs `deleteBatch` until a batch deletes fewer rows than it may; answers how many it deleted. */
  private async inBatches(deleteBatch: (batchSize: number) => Promise<number>): Promise<number> {
    let total = 0;
    for (;;) {
      const deleted = await deleteBatch(OAUTH_RECORDS_SWEEP.batchSize);
      total += deleted;
      if (deleted < OAUTH_RECORDS_SWEEP.batchSize) return total;
    }
  }
}
