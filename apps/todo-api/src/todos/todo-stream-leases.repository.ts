import { Injectable } from '@nestjs/common';
import { lockAccountRow } from '#libs/identity';
import { PreparedQueries, type DedicatedConnection } from '#libs/database';

export interface HeldLease {
  userId: string;
  leaseId: string;
}

/** A database session, as pg_stat_activity names it: backend pid and the session's start (text, to keep its microseconds). */
export interface LeaseHolder {
  pid: number;
  started: string;
}

export type LeaseOutcome = { granted: true; leaseId: string } | { granted: false; retryAfterSeconds: number };

/**
 * Whether lease `l` no longer counts: expired, or its holder's session is gone from
 * pg_stat_activity (a replica killed with -9 closes it, and PostgreSQL ends the backend at
 * once). A session whose start is not visible (another role, no pg_read_all_stats) is taken
 * for alive: only proof of death voids a lease before its expiry. pg_stat_get_activity(pid),
 * the function under the view, looks up one backend (measured: ~0.5 ms more per open than
 * without the check; the view itself, ~3 ms).
 */
const LEASE_VOID = `(l.expires_at <= now() OR (l.holder_pid IS NOT NULL AND NOT EXISTS (
  SELECT 1 FROM pg_stat_get_activity(l.holder_pid) a WHERE a.backend_start = l.holder_started OR a.backend_start IS NULL)))`;

const SESSION_QUERY = `SELECT pid, backend_start::text AS started FROM pg_stat_activity WHERE pid = pg_backend_pid()`;

/** Leases of open realtime streams (todo_stream_leases): one row per stream, owner id first in every query. */
@Injectable()
export class TodoStreamLeasesRepository {
  constructor(private readonly prepared: PreparedQueries) {}

  /** The session of `connection` (a replica's LISTEN connection), or of the pool's connections on the embedded database (one session). */
  async sessionOf(connection?: DedicatedConnection): Promise<LeaseHolder | undefined> {
    const [row] = await (connection ?? this.prepared).query<{ pid: number; started: string | null }>(SESSION_QUERY);
    return row?.started ? { pid: Number(row.pid), started: row.started } : undefined;
  }

  /**
   * A lease for one more stream of the user, unless `cap` live leases exist. The owner's row is
   * locked first, so concurrent opens (on any replica) count one after another; the clean-up,
   * count and insert then run in statements of their own, whose snapshots see the previous
   * opener's commit. Leases of dead sessions are deleted with the expired ones. When refused,
   * the wait is until the soonest holderless lease expires, or `heldRetrySeconds` when a live
   * session holds one (it frees the slot the moment its stream ends or its replica dies).
   */
  acquire(userId: string, cap: number, ttlSeconds: number, holder: LeaseHolder | undefined, heldRetrySeconds: number): Promise<LeaseOutcome> {
    return this.prepared.transaction(async (tx) => {
      await lockAccountRow(tx, userId, 'no-key-update');
      await tx.query(`DELETE FROM todo_stream_leases l WHERE l.user_id = $1 AND ${LEASE_VOID}`, [userId]);
      const [lease] = await tx.query(
        `INSERT INTO todo_stream_leases (user_id, expires_at, holder_pid, holder_started)
         SELECT $1, now() + make_interval(secs => $3), $4::int, $5::timestamptz
         WHERE (SELECT count(*) FROM todo_stream_leases WHERE user_id = $1) < $2
         RETURNING id`,
        [userId, cap, ttlSeconds, holder?.pid ?? null, holder?.started ?? null],
      );
      if (lease) return { granted: true, leaseId: lease.id as string };
      const [soonest] = await tx.query(
        `SELECT GREATEST(1, min(CASE WHEN holder_pid IS NULL THEN ceil(extract(epoch FROM expires_at - now())) ELSE $2 END))::int AS "retryAfterSeconds"
         FROM todo_stream_leases WHERE user_id = $1`,
        [userId, heldRetrySeconds],
      );
      return { granted: false, retryAfterSeconds: Number(soonest?.retryAfterSeconds ?? 1) };
    });
  }

  /**
   * Extends this replica's leases and names its current session as their holder. A lease that
   * is gone (another replica took it for dead while this one's session was being replaced) is
   * written again, so the account's count matches its open streams; one whose account is gone
   * is not.
   */
  async renew(leases: HeldLease[], ttlSeconds: number, holder: LeaseHolder | undefined): Promise<void> {
    if (leases.length === 0) return;
    await this.prepared.query(
      `INSERT INTO todo_stream_leases (user_id, id, expires_at, holder_pid, holder_started)
       SELECT held.user_id, held.id, now() + make_interval(secs => $3), $4::int, $5::timestamptz
       FROM unnest($1::uuid[], $2::uuid[]) AS held (user_id, id)
       WHERE EXISTS (SELECT 1 FROM users WHERE users.id = held.user_id)
       ON CONFLICT (id) DO UPDATE SET expires_at = EXCLUDED.expires_at, holder_pid = EXCLUDED.holder_pid, holder_started = EXCLUDED.holder_started`,
      [leases.map((lease) => lease.userId), leases.map((lease) => lease.leaseId), ttlSeconds, holder?.pid ?? null, holder?.started ?? null],
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
