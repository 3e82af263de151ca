import { Injectable } from '@nestjs/common';
import { SESSION_COLUMNS, type SessionRow } from '../accounts/account.rows.js';
import { Database, type Transaction } from '#libs/database';
import { REFRESH_TOKEN_TTL_DAYS } from './refresh-token.js';

/** The most recent sessions a user sees in the list. */
const SESSION_LIST_LIMIT = 200;

export interface SessionState {
  id: string;
  userId: string;
  revokedAt: Date | null;
  expiresAt: Date;
}

export interface NewSession {
  userId: string;
  refreshTokenHash: string;
  userAgent: string | null;
  ipAddress: string | null;
}

/** A refresh token rotated out (refresh_token_history), with its age. */
export interface RetiredToken {
  tokenHash: string;
  sessionId: string;
  userId: string;
  successorHash: string;
  retryKeyHash: string | null;
  successorSealed: string | null;
  rotatedAt: Date;
  ageMs: number;
}

export interface Rotation {
  sessionId: string;
  oldHash: string;
  newHash: string;
  retryKeyHash: string | null;
  successorSealed: string | null;
}

@Injectable()
export class SessionsRepository {
  constructor(private readonly sql: Database) {}

  /** Inside `tx` when given, else alone. */
  async create(tx: Transaction | undefined, session: NewSession): Promise<string> {
    const rows = await (tx ?? this.sql).query<{ id: string }>(
      `INSERT INTO sessions (user_id, refresh_token_hash, user_agent, ip_address, last_used_at, expires_at)
       VALUES ($1, $2, $3, $4, now(), now() + make_interval(days => $5))
       RETURNING id`,
      [session.userId, session.refreshTokenHash, session.userAgent, session.ipAddress, REFRESH_TOKEN_TTL_DAYS],
    );
    return rows[0].id;
  }

  /** Whether another session of the user (any state, sessions are kept) was opened with this User-Agent. */
  async otherSessionWithUserAgent(userId: string, userAgent: string | null, exceptSessionId: string): Promise<boolean> {
    const rows = await this.sql.query(`SELECT 1 FROM sessions WHERE user_id = $1 AND user_agent IS NOT DISTINCT FROM $2 AND id <> $3 LIMIT 1`, [userId, userAgent, exceptSessionId]);
    return rows.length > 0;
  }

  async findByCurrentHash(refreshTokenHash: string): Promise<SessionState | undefined> {
    const rows = await this.sql.query<SessionState>(
      `SELECT id, user_id AS "userId", revoked_at AS "revokedAt", expires_at AS "expiresAt" FROM sessions WHERE refresh_token_hash = $1`,
      [refreshTokenHash],
    );
    return rows[0];
  }

  /**
   * Replaces the session's refresh token if, and only if, it is still `oldHash` on a live
   * session: of concurrent rotations of one token exactly one matches. The retired token
   * is kept (hashed) for reuse detection. Answers the owner's id, or undefined if it lost.
   */
  rotate(rotation: Rotation): Promise<string | undefined> {
    return this.sql.transaction(async (tx) => {
      const updated = await tx.query<{ user_id: string }>(
        `UPDATE sessions
         SET refresh_token_hash = $3, last_used_at = now(), expires_at = now() + make_interval(days => $4)
         WHERE id = $1 AND refresh_token_hash = $2 AND revoked_at IS NULL AND expires_at > now()
         RETURNING user_id`,
        [rotation.sessionId, rotation.oldHash, rotation.newHash, REFRESH_TOKEN_TTL_DAYS],
      );
      if (updated.length === 0) return undefined;
      const userId = updated[0].user_id;
      await tx.query(
        `INSERT INTO refresh_token_history (token_hash, session_id, user_id, successor_hash, retry_key_hash, successor_sealed, rotated_at)
         VALUES ($1, $2, $3, $4, $5, $6, now())`,
        [rotation.oldHash, rotation.sessionId, userId, rotation.newHash, rotation.retryKeyHash, rotation.successorSealed],
      );
      // Retired tokens older than a token's whole lifetime can no longer be presented: drop them.
      await tx.query(
        `DELETE FROM refresh_token_history WHERE session_id = $1 AND rotated_at < now() - make_interval(days => $2)`,
        [rotation.sessionId, REFRESH_TOKEN_TTL_DAYS + 1],
      );
      return userId;
    });
  }

  async findRetired(tokenHash: string): Promise<RetiredToken | undefined> {
    const rows = await this.sql.query<Omit<RetiredToken, 'ageMs'> & { ageMs: string }>(
      `SELECT token_hash AS "tokenHash", session_id AS "sessionId", user_id AS "userId", successor_hash AS "successorHash",
              retry_key_hash AS "retryKeyHash", successor_sealed AS "successorSealed", rotated_at AS "rotatedAt",
              (extract(epoch FROM (now() - rotated_at)) * 1000)::bigint AS "ageMs"
       FROM refresh_token_history WHERE token_hash = $1`,
      [tokenHash],
    );
    return rows[0] ? { ...rows[0], ageMs: Number(rows[0].ageMs) } : undefined;
  }

  /** True while the session is live and its current token is still `refreshTokenHash` (unused). */
  async isLiveWithToken(sessionId: string, refreshTokenHash: string): Promise<boolean> {
    const rows = await this.sql.query(
      `SELECT 1 FROM sessions WHERE id = $1 AND refresh_token_hash = $2 AND revoked_at IS NULL AND expires_at > now()`,
      [sessionId, refreshTokenHash],
    );
    return rows.length > 0;
  }

  async revoke(sessionId: string): Promise<void> {
    await this.sql.query(`UPDATE sessions SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL`, [sessionId]);
  }

  /** Revokes every live session of the user; answers how many. */
  async revokeAllForUser(tx: Transaction | undefined, userId: string): Promise<number> {
    const revoked = await (tx ?? this.sql).query(`UPDATE sessions SET revoked_at = now() WHERE user_id = $1 AND revoked_at IS NULL RETURNING id`, [userId]);
    return revoked.length;
  }

  /** Revokes the user's session; false when the user has no session with this id. */
  async revokeOwned(userId: string, sessionId: string): Promise<boolean> {
    const rows = await this.sql.query(
      `UPDATE sessions SET revoked_at = COALESCE(revoked_at, now()) WHERE user_id = $1 AND id = $2 RETURNING id`,
      [userId, sessionId],
    );
    return rows.length > 0;
  }

  /** Revokes the user's session whose current refresh token is `refreshTokenHash`; false when none. */
  async revokeOwnedByToken(userId: string, refreshTokenHash: string): Promise<boolean> {
    const rows = await this.sql.query(
      `UPDATE sessions SET revoked_at = now() WHERE user_id = $1 AND refresh_token_hash = $2 AND revoked_at IS NULL RETURNING id`,
      [userId, refreshTokenHash],
    );
    return rows.length > 0;
  }

  listForUser(userId: string): Promise<SessionRow[]> {
    return this.sql.query(`SELECT ${SESSION_COLUMNS} FROM sessions WHERE user_id = $1 ORDER BY created_at DESC, id LIMIT $2`, [userId, SESSION_LIST_LIMIT]);
  }
}
