import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { PeriodicTask, rateLimitHeaders, RateLimitRejections } from '#libs/common';
import { TodoStreamLeasesRepository, type HeldLease } from './todo-stream-leases.repository.js';

/** Concurrent realtime streams one account may hold, over every replica (README limits). */
export const TODO_STREAMS_PER_ACCOUNT = 10;
/** The limit's name in `rate_limit_rejections_total` (it is a cap, not a budget, so no @RateLimit bucket). */
export const TODO_STREAMS_LIMIT_NAME = 'todo-event-streams';
/** A lease outlives a dead replica by at most this long; live replicas renew theirs three times within it. */
const LEASE_TTL_SECONDS = 60;
const RENEW_INTERVAL_MS = 20_000;

/**
 * The per-account cap on concurrent realtime streams, held across replicas by leases in the
 * database: a stream opens only with a lease, and gives it back when it ends. Each replica
 * renews the leases of its open streams on a timer, so a replica that dies without giving
 * them back blocks its users' slots for at most LEASE_TTL_SECONDS.
 */
@Injectable()
export class TodoStreamLeasesService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(TodoStreamLeasesService.name);
  private readonly held = new Map<string, HeldLease>();
  /** Held leases are renewed before they lapse (a crashed replica's lapse on their own). */
  private readonly renewal = new PeriodicTask('Renewal of todo stream leases', RENEW_INTERVAL_MS, () => this.renew(), this.logger);

  constructor(
    private readonly repository: TodoStreamLeasesRepository,
    private readonly rejections: RateLimitRejections,
  ) {}

  onModuleInit(): void {
    this.renewal.start();
  }

  async onModuleDestroy(): Promise<void> {
    this.renewal.stop();
    await this.releaseAll();
  }

  /** A lease for a new stream of the user; 429 RATE_LIMITED when the account already holds its cap. */
  async acquire(userId: string): Promise<HeldLease> {
    const outcome = await this.repository.acquire(userId, TODO_STREAMS_PER_ACCOUNT, LEASE_TTL_SECONDS);
    if (!outcome.granted) {
      const { retryAfterSeconds } = outcome;
      throw this.rejections.reject(
        TODO_STREAMS_LIMIT_NAME,
        retryAfterSeconds,
        `At most ${TODO_STREAMS_PER_ACCOUNT} realtime streams per account may be open at once; close one first`,
        rateLimitHeaders(TODO_STREAMS_PER_ACCOUNT, { hits: TODO_STREAMS_PER_ACCOUNT + 1, resetSeconds: retryAfterSeconds }),
      );
    }
    const lease = { userId, leaseId: outcome.leaseId };
    this.held.set(lease.leaseId, lease);
    return lease;
  }

  /** Gives the lease back without holding up the caller; if that fails, the lease expires by itself. */
  release(lease: HeldLease): void {
    if (!this.held.delete(lease.leaseId)) return;
    this.repository.release([lease]).catch((error: Error) => this.logger.warn({ err: error.message }, 'Could not release a stream lease; it expires by itself'));
  }

  /** Shutdown: every lease this replica holds, in one statement, before the pool closes. */
  async releaseAll(): Promise<void> {
    const leases = [...this.held.values()];
    this.held.clear();
    await this.repository.release(leases).catch((error: Error) => this.logger.warn({ err: error.message }, 'Could not release stream leases; they expire by themselves'));
  }

  private async renew(): Promise<void> {
    try {
      await this.repository.renew([...this.held.values()], LEASE_TTL_SECONDS);
      await this.repository.pruneExpired(LEASE_TTL_SECONDS);
    } catch (error) {
      this.logger.debug({ err: (error as Error).message }, 'Could not renew stream leases; retrying on the next tick');
    }
  }
}
