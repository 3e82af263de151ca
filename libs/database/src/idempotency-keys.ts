import type { Transaction } from './transaction.js';

/** One Idempotency-Key as stored: the request it was first used for and, once committed, its answer. */
export interface StoredIdempotencyKey {
  requestHash: string;
  statusCode: number | null;
  response: unknown;
}

/**
 * The Idempotency-Key store (table todo_idempotency_keys, named after its first user), shared by
 * every route that honours the header: todos (caller `key:<api key id>` or `grant:<grant id>`)
 * and the feedback widget (`site:<site id>`). A key is unique per caller; rows older than the
 * window are deleted by the sweep or when the key is claimed again.
 */
export const IdempotencyKeys = {
  /** Claims the key for this request; false when an unexpired earlier request holds it. */
  async claim(tx: Transaction, caller: string, key: string, userId: string, requestHash: string, windowHours: number, apiKeyId: string | null = null): Promise<boolean> {
    await tx.query(`DELETE FROM todo_idempotency_keys WHERE caller = $1 AND idempotency_key = $2 AND created_at < now() - make_interval(hours => $3)`, [caller, key, windowHours]);
    const rows = await tx.query(
      `INSERT INTO todo_idempotency_keys (caller, api_key_id, idempotency_key, user_id, request_hash) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (caller, idempotency_key) DO NOTHING RETURNING 1 AS claimed`,
      [caller, apiKeyId, key, userId, requestHash],
    );
    return rows.length > 0;
  },

  async find(tx: Transaction, caller: string, key: string): Promise<StoredIdempotencyKey | undefined> {
    const rows = await tx.query<StoredIdempotencyKey>(
      `SELECT request_hash AS "requestHash", status_code AS "statusCode", response FROM todo_idempotency_keys WHERE caller = $1 AND idempotency_key = $2`,
      [caller, key],
    );
    return rows[0];
  },

  async store(tx: Transaction, caller: string, key: string, statusCode: number, response: unknown): Promise<void> {
    await tx.query(`UPDATE todo_idempotency_keys SET status_code = $3, response = $4 WHERE caller = $1 AND idempotency_key = $2`, [caller, key, statusCode, JSON.stringify(response)]);
  },

  /** Deletes every key older than the window, whoever's. */
  async sweep(executor: { query: Transaction['query'] }, windowHours: number): Promise<void> {
    await executor.query(`DELETE FROM todo_idempotency_keys WHERE created_at < now() - make_interval(hours => $1)`, [windowHours]);
  },
};
