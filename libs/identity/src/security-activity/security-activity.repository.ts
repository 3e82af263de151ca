import { Injectable } from '@nestjs/common';
import { Database, type Transaction } from '#libs/database';
import type { SecurityActivityType } from './security-activity-types.js';

export interface SecurityActivityRow {
  id: string;
  userId: string;
  type: SecurityActivityType;
  ipAddress: string | null;
  userAgent: string | null;
  details: Record<string, unknown>;
  createdAt: Date;
  /** created_at at full precision, for the keyset (a Date keeps milliseconds only). */
  createdAtKey: string;
}

export const SECURITY_ACTIVITY_COLUMNS = `id, user_id AS "userId", type, ip_address AS "ipAddress", user_agent AS "userAgent", details, created_at AS "createdAt"`;
/** The columns with the keyset's full-precision timestamp. */
const PAGE_COLUMNS = `${SECURITY_ACTIVITY_COLUMNS}, created_at::text AS "createdAtKey"`;

export interface NewSecurityActivity {
  type: SecurityActivityType;
  ipAddress: string | null;
  userAgent: string | null;
  details: Record<string, unknown>;
}

/** Where a page starts: after this entry in newest-first order. */
export interface ActivityKeyset {
  createdAtKey: string;
  id: string;
}

/** The security_activity rows of one account at a time (owner id first), and the sweep that bounds the table. */
@Injectable()
export class SecurityActivityRepository {
  constructor(private readonly sql: Database) {}

  /** In the caller's transaction when there is one, so the entry commits or rolls back with the change. */
  async insert(tx: Transaction | undefined, userId: string, entry: NewSecurityActivity): Promise<void> {
    await (tx ?? this.sql).query(`INSERT INTO security_activity (user_id, type, ip_address, user_agent, details) VALUES ($1, $2, $3, $4, $5::jsonb)`, [
      userId,
      entry.type,
      entry.ipAddress,
      entry.userAgent,
      JSON.stringify(entry.details),
    ]);
  }

  /** Newest first, `limit` rows after `after`. */
  page(userId: string, limit: number, after: ActivityKeyset | undefined): Promise<SecurityActivityRow[]> {
    if (!after) {
      return this.sql.query(`SELECT ${PAGE_COLUMNS} FROM security_activity WHERE user_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2`, [userId, limit]);
    }
    return this.sql.query(
      `SELECT ${PAGE_COLUMNS} FROM security_activity WHERE user_id = $1 AND (created_at, id) < ($2::timestamptz, $3::uuid)
       ORDER BY created_at DESC, id DESC LIMIT $4`,
      [userId, after.createdAtKey, after.id, limit],
    );
  }

  /** Deletes up to `batchSize` entries older than `days` (SKIP LOCKED: replicas sweeping at once skip each other's rows); answers how many. */
  async deleteOlderThan(days: number, batchSize: number): Promise<number> {
    const deleted = await this.sql.query(
      `DELETE FROM security_activity WHERE id IN (
         SELECT id FROM security_activity WHERE created_at < now() - make_interval(days => $1) ORDER BY created_at LIMIT $2 FOR UPDATE SKIP LOCKED)
       RETURNING 1`,
      [days, batchSize],
    );
    return deleted.length;
  }

  /** Accounts holding more than `keep` entries (at most `limit` of them). */
  async accountsOver(keep: number, limit: number): Promise<string[]> {
    const rows = await this.sql.query<{ userId: string }>(
      `SELECT user_id AS "userId" FROM security_activity GROUP BY user_id HAVING count(*) > $1 LIMIT $2`,
      [keep, limit],
    );
    return rows.map((row) => row.userId);
  }

  /** Deletes up to `batchSize` of the account's entries beyond its newest `keep`; answers how many. */
  async deleteBeyondNewest(userId: string, keep: number, batchSize: number): Promise<number> {
    const deleted = await this.sql.query(
      `DELETE FROM security_activity WHERE id IN (
         SELECT id FROM security_activity WHERE user_id = $1 ORDER BY created_at DESC, id DESC OFFSET $2 LIMIT $3 FOR UPDATE SKIP LOCKED)
       RETURNING 1`,
      [userId, keep, batchSize],
    );
    return deleted.length;
  }
}
