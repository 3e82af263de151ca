import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import type { DedicatedConnection } from '#libs/database';
import { PeriodicTask, rateLimitHeaders, RateLimitRejections } from '#libs/common';
import { TodoStreamLeasesRepository, type HeldLease, type LeaseHolder } from './todo-stream-leases.repository.js';

/** Concurrent realtime streams one account may hold, over every replica (README limits). */
export const TODO_STREAMS_PER_ACCOUNT = 10;
/** The limit's name in `rate_limit_rejections_total` (it is a cap, not a budget, so no @RateLimit bucket). */
const TODO_STREAMS_LIMIT_NAME = 'todo-event-streams';
/**
 * The backstop: a lease whose holder session still shows in pg_stat_activity (a host that vanished
 * without closing its connection), or that has no holder, outlives its replica by at most this
 * long; live replicas renew theirs three times within it.
 */
const LEASE_TTL_SECONDS = 60;
const RENEW_INTERVAL_MS = 20_000;
/** Retry-After at the cap while live sessions hold the leases: a slot frees the moment a stream ends or its replica's connection closes. */
export const TODO_STREAMS_HELD_RETRY_SECONDS = 5;

/**
 * The per-account cap on concurrent realtime streams, held across replicas by leases in the
 * database: a stream opens only with a lease, and gives it back when it ends. Each lease names
 * the database session of the replica that holds it (its LISTEN connection; on the embedded
 * database, the database's one session), and stops counting as soon as that session is gone
 * from pg_stat_activity: a replica killed with -9 frees its users' slots the moment the kernel
 * closes its connection. A live replica keeps its leases through a GC pause, a frozen database
 * or a failed renewal, since its session stays. When its session is replaced (the LISTEN
 * connection reconnected), it renews its leases under the new one at once, writing back any
 * another replica took for dead meanwhile. Each replica also renews on a timer, so a lease
 * whose session lingers (a host gone without closing it) lapses after LEASE_TTL_SECONDS.
 */
@Injectable()
export class TodoStreamLeasesService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(TodoStreamLeasesService.name);
  private readonly held = new Map<string, HeldLease>();
  /** The session this replica's leases are tied to; none until it is known (leases then count until they expire). */
  private holder?: LeaseHolder;
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
    const outcome = await this.repository.acquire(userId, TODO_STREAMS_PER_ACCOUNT, LEASE_TTL_SECONDS, this.holder, TODO_STREAMS_HELD_RETRY_SECONDS);
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

  /**
   * Ties this replica's leases to the session of `connection` (its LISTEN connection, just connected),
   * or with none to the pool's session (the embedded database has only one), and moves the
   * leases it holds there at once. Failing, the leases keep their old holder until the next try.
   */
  async holdBy(connection?: DedicatedConnection): Promise<void> {
    try {
      this.holder = await this.repository.sessionOf(connection);
      await this.renew();
    } catch (error) {
      this.logger.debug({ err: (error as Error).message }, 'Could not tie stream leases to the database session; they count until they expire');
    }
  }

  /** The session is gone (the LISTEN connection lost): new leases count by their expiry until the next one is known. */
  sessionLost(): void {
    this.holder = undefined;
  }

  private async renew(): Promise<void> {
    const leases = [...this.held.values()];
    try {
      await this.repository.renew(leases, LEASE_TTL_SECONDS, this.holder);
      // A stream that ended while the renewal ran: its lease may have been written back after its release.
      const ended = leases.filter((lease) => !this.held.has(lease.leaseId));
      if (ended.length > 0) await this.repository.release(ended);
      await this.repository.pruneExpired(LEASE_TTL_SECONDS);
    } catch (error) {
      this.logger.debug({ err: (error as Error).message }, 'Could not renew stream leases; retrying on the next tick');
    }
  }
}
