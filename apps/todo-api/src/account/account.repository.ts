import { Injectable } from '@nestjs/common';
import { lockAccountRow, SESSION_COLUMNS, type SessionRow } from '#libs/identity';
import { Database, type Transaction } from '#libs/database';

/** Reads of everything an account owns, and its removal. Every query takes the user id first. */
@Injectable()
export class AccountRepository {
  constructor(private readonly sql: Database) {}

  transaction<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
    return this.sql.transaction(work);
  }



  findSessions(userId: string): Promise<SessionRow[]> {
    return this.sql.query(`SELECT ${SESSION_COLUMNS} FROM sessions WHERE user_id = $1 ORDER BY created_at, id`, [userId]);
  }

  /** The ids of the account's feedback sites (their webhook endpoints are listed in the export). */
  async siteIdsOf(userId: string): Promise<string[]> {
    const rows = await this.sql.query<{ id: string }>(`SELECT id FROM sites WHERE owner_id = $1`, [userId]);
    return rows.map((row) => row.id);
  }


  /**
   * Removes the account. Every user-owned table references users(id) ON DELETE CASCADE, so
   * deleting the user row removes the rest in the same statement. Answers the ids of the API
   * keys and sessions it had (their rate-limit counters are keyed by text and go separately), or
   * undefined when the user was already gone.
   */
  async deleteUser(tx: Transaction, userId: string): Promise<{ apiKeyIds: string[]; sessionIds: string[] } | undefined> {
    if (!(await lockAccountRow(tx, userId, 'update'))) return undefined;
    const keys: Array<{ id: string }> = await tx.query(`SELECT id FROM api_keys WHERE user_id = $1`, [userId]);
    const sessions: Array<{ id: string }> = await tx.query(`SELECT id FROM sessions WHERE user_id = $1`, [userId]);
    await tx.query(`DELETE FROM users WHERE id = $1`, [userId]);
    return { apiKeyIds: keys.map((key) => key.id), sessionIds: sessions.map((session) => session.id) };
  }
}
