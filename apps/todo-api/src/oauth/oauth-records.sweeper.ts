import { Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { PeriodicTask } from '#libs/common';
import { OAuthRecordsRepository } from './oauth-records.repository.js';

/** How often each replica clears expired authorization-server rows, and how many rows one statement deletes. */
export const OAUTH_RECORDS_SWEEP = { intervalMs: 15 * 60_000, batchSize: 1000 } as const;

/**
 * Clears expired rows of oauth_records (codes, interactions, sessions, refresh tokens, grants past
 * their lifetime), which oidc-provider never deletes itself. Every replica runs it; the repository's
 * batches skip rows another replica is deleting, so running it twice at once is harmless.
 */
@Injectable()
export class OAuthRecordsSweeper implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('OAuth');
  /** Expired records go in bounded SKIP LOCKED batches, every interval on every replica. */
  private readonly timer = new PeriodicTask('OAuth records sweep', OAUTH_RECORDS_SWEEP.intervalMs, () => this.sweep(), this.logger);

  constructor(private readonly records: OAuthRecordsRepository) {}

  onModuleInit(): void {
    this.timer.start();
  }

  onModuleDestroy(): void {
    this.timer.stop();
  }

  /** Deletes every expired row, batch by batch; answers how many. */
  async sweep(): Promise<number> {
    let total = 0;
    for (;;) {
      const deleted = await this.records.deleteExpired(OAUTH_RECORDS_SWEEP.batchSize);
      total += deleted;
      if (deleted < OAUTH_RECORDS_SWEEP.batchSize) return total;
    }
  }
}
