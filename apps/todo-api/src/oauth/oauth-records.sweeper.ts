import { Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
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
  private timer?: NodeJS.Timeout;

  constructor(private readonly records: OAuthRecordsRepository) {}

  onModuleInit(): void {
    this.timer = setInterval(() => {
      this.sweep().catch((error: Error) => this.logger.warn({ err: error.message }, 'OAuth records sweep failed'));
    }, OAUTH_RECORDS_SWEEP.intervalMs);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    if (this.timer) clearInterval(this.timer);
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
