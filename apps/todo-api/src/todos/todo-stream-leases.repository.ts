import { Injectable } from '@nestjs/common';
import { PreparedQueries } from '#libs/database';

export interface HeldLease {
  userId: string;
  leaseId: string;
}

export type LeaseOutcome = { granted: true; leaseId: string } | { granted: false; retryAfterSeconds: number };

/** Leases of open realtime streams (todo_stream_leases): one row per stream, owner id first in every query. */
@Injectable()
export class TodoStreamLeasesRepository {
  constructor(private readonly prepared: PreparedQueries) {}

  /**
   * A lease for one more stream of the user, unless `cap` live leases exist. The owner's row is
   * locked first, so concurrent opens (on any replica) count one after another; the count and
   * insert then run in a statement of their own, whose snapshot sees the previous opener's commit.
   */
  acquire(userId: string, cap: number, ttlSeconds: number): Promise<LeaseOutcome> {
    return this.prepared.transaction(async (tx) => {
      await tx.query(`SELECT 1 FROM users WHERE id = $1 FOR NO KEY UPDATE`, [userId]);
      await tx.query(`DELETE FROM todo_stream_leases WHERE user_id = $1 AND expires_at <= now()`, [userId]);
      const [lease] = await tx.query(
        `INSERT INTO todo_stream_leases (user_id, expires_at)
         SELECT $1, now() + make_interval(secs => $3)
         WHERE (SELECT count(*) FROM todo_stream_leases WHERE user_id = $1) < $2
         RETURNING id`,
        [userId, cap, ttlSeconds],
      );
      if (lease) return { granted: true, leaseId: lease.id as string };
      const [soonest] = await tx.query(
        `SELECT GREATEST(1, ceil(extract(epoch FROM min(expires_at) - now())))::int AS "retryAfterSeconds" FROM todo_stream_leases WHERE user_id = $1`,
        [userId],
      );
      return { granted: false, retryAfterSeconds: Number(soonest?.retryAfterSeconds ?? 1) };
    });
  }

  /** Extends this replica's leases; a lease already gone (its account deleted) is simply not there. */
  async renew(leases: HeldLease[], ttlSeconds: number): Promise<void> {
    if (leases.length === 0) return;
    await this.prepared.query(
      `UPDATE todo_stream_leases SET expires_at = now() + make_interval(secs => $3)
       WHERE (user_id, id) IN (SELECT * FROM unnest($1::uuid[], $2::uuid[]))`,
      [leases.map((lease) => lease.userId), leases.map((lease) => lease.leaseId), ttlSeconds],
    );
  }

  async release(leases: HeldLease[]): Promise<void> {
    if (leases.length === 0) return;
    await this.prepared.query(`DELETE FROM todo_stream_leases WHERE (user_id, id) IN (SELECT * FROM unnest($1::uuid[], $2::uuid[]))`, [
      leases.map((lease) => lease.userId),
      leases.map((lease) => lease.leaseId),
    ]);
  }

  /** Housekeeping across accounts: leases a dead replica left behind, long expired (they no longer count anyway). */
  async pruneExpired(graceSeconds: number): Promise<void> {
    await this.prepared.query(`DELETE FROM todo_stream_leases WHERE expires_at < now() - make_interval(secs => $1)`, [graceSeconds]);
  }
}
