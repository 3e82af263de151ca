import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { hasApiAccess } from './subscription-access.js';

export interface ApiKeyAccessRow {
  apiKeyId: string;
  userId: string;
  expiresAt: Date | null;
  revokedAt: Date | null;
  lastUsedAt: Date | null;
  subscriptionStatus: string | null;
  isBetaLifetime: boolean;
}

/** lastUsedAt is written at most this often per key, so use does not mean a write per request. */
const LAST_USED_RESOLUTION_MS = 60_000;

/** The hot-path read of API-key authentication: one indexed lookup, key and access together. */
@Injectable()
export class ApiKeyAccessRepository {
  private readonly logger = new Logger(ApiKeyAccessRepository.name);

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async findByHash(keyHash: string): Promise<ApiKeyAccessRow | undefined> {
    const rows = await this.dataSource.query(
      `SELECT k.id AS "apiKeyId", k.user_id AS "userId", k.expires_at AS "expiresAt", k.revoked_at AS "revokedAt",
              k.last_used_at AS "lastUsedAt", s.status AS "subscriptionStatus", COALESCE(s.is_beta_lifetime, false) AS "isBetaLifetime"
       FROM api_keys k LEFT JOIN subscriptions s ON s.user_id = k.user_id
       WHERE k.key_hash = $1`,
      [keyHash],
    );
    return rows[0];
  }

  /** The one access rule for an account (JWT routes that need API access), read from its subscription row. */
  async userHasApiAccess(userId: string): Promise<boolean> {
    const rows: Array<{ status: string; isBetaLifetime: boolean }> = await this.dataSource.query(
      `SELECT status, is_beta_lifetime AS "isBetaLifetime" FROM subscriptions WHERE user_id = $1`,
      [userId],
    );
    return hasApiAccess(rows[0]);
  }

  /** Records use without blocking the request; skipped while the stored value is fresh. */
  touchLastUsed(row: ApiKeyAccessRow, now = new Date()): void {
    if (row.lastUsedAt && now.getTime() - new Date(row.lastUsedAt).getTime() < LAST_USED_RESOLUTION_MS) return;
    this.dataSource
      .query(
        `UPDATE api_keys SET last_used_at = now()
         WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < now() - interval '60 seconds')`,
        [row.apiKeyId],
      )
      .catch((error: Error) => this.logger.warn({ err: error.message }, 'Could not record API key use'));
  }
}
