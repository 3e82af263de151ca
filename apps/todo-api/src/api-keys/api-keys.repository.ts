import { Injectable } from '@nestjs/common';
import { lockAccountRow } from '#libs/identity';
import { Database, type Transaction } from '#libs/database';
import { API_KEY_COLUMNS, type ApiKeyRow } from '../api-access/api-access.rows.js';

export interface NewApiKeySecret {
  prefix: string;
  hash: string;
}

/** API key records of one owner at a time: every query takes the owner id first. */
@Injectable()
export class ApiKeysRepository {
  constructor(private readonly sql: Database) {}

  transaction<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
    return this.sql.transaction(work);
  }

  list(userId: string): Promise<ApiKeyRow[]> {
    return this.sql.query(`SELECT ${API_KEY_COLUMNS} FROM api_keys WHERE user_id = $1 ORDER BY created_at, id`, [userId]);
  }

  async findOne(userId: string, keyId: string): Promise<ApiKeyRow | null> {
    const rows: ApiKeyRow[] = await this.sql.query(`SELECT ${API_KEY_COLUMNS} FROM api_keys WHERE user_id = $1 AND id = $2`, [userId, keyId]);
    return rows[0] ?? null;
  }

  /** The key, locked until `tx` ends. */
  async lockOne(tx: Transaction, userId: string, keyId: string): Promise<ApiKeyRow | null> {
    const rows = await tx.query<ApiKeyRow>(`SELECT ${API_KEY_COLUMNS} FROM api_keys WHERE user_id = $1 AND id = $2 FOR UPDATE`, [userId, keyId]);
    return rows[0] ?? null;
  }

  /**
   * Inserts the key unless the owner already holds `maxActive` keys that still work (neither
   * revoked nor expired); null then. The owner's row is locked first, so two concurrent
   * creations cannot both see room for one more.
   */
  async insertWithinLimit(userId: string, name: string, secret: NewApiKeySecret, expiresAt: Date | null, maxActive: number): Promise<ApiKeyRow | null> {
    return this.transaction(async (tx) => {
      await lockAccountRow(tx, userId, 'update');
      const [{ active }] = (await tx.query(
        `SELECT count(*)::int AS active FROM api_keys WHERE user_id = $1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())`,
        [userId],
      )) as Array<{ active: number }>;
      if (active >= maxActive) return null;
      const rows = await tx.query<ApiKeyRow>(
        `INSERT INTO api_keys (user_id, name, prefix, key_hash, expires_at) VALUES ($1, $2, $3, $4, $5) RETURNING ${API_KEY_COLUMNS}`,
        [userId, name, secret.prefix, secret.hash, expiresAt],
      );
      return rows[0];
    });
  }

  /** Revokes the key (keeping the first revocation time); false when the owner has no such key. */
  async revoke(userId: string, keyId: string): Promise<boolean> {
    const rows = await this.sql.query(
      `UPDATE api_keys SET revoked_at = COALESCE(revoked_at, now()) WHERE user_id = $1 AND id = $2 RETURNING id`,
      [userId, keyId],
    );
    return rows.length > 0;
  }

  /** Replaces the secret in place: the old hash is gone in the same statement, so the old key fails at once. */
  async replaceSecret(tx: Transaction, userId: string, keyId: string, secret: NewApiKeySecret, expiresAt: Date | null): Promise<ApiKeyRow> {
    const rows = await tx.query<ApiKeyRow>(
      `UPDATE api_keys SET prefix = $3, key_hash = $4, expires_at = $5, last_used_at = NULL WHERE user_id = $1 AND id = $2 RETURNING ${API_KEY_COLUMNS}`,
      [userId, keyId, secret.prefix, secret.hash, expiresAt],
    );
    return rows[0];
  }
}
