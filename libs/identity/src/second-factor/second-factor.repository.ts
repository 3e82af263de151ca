import { Injectable } from '@nestjs/common';
import { Database, type Transaction } from '#libs/database';

export interface TotpFactorRow {
  userId: string;
  secretSealed: string;
  confirmedAt: Date | null;
  /** The newest time step a code was accepted for (as text: bigint), or null before the first. */
  lastTimeStep: string | null;
  createdAt: Date;
}

const TOTP_FACTOR_COLUMNS = `user_id AS "userId", secret_sealed AS "secretSealed", confirmed_at AS "confirmedAt", last_time_step::text AS "lastTimeStep", created_at AS "createdAt"`;

/** How many sign-in challenges one account keeps at most (older ones go when a new one is made). */
const MFA_CHALLENGES_PER_ACCOUNT = 5;

/** The second-factor rows of one account at a time (owner id first): its authenticator, recovery codes and sign-in challenges. */
@Injectable()
export class SecondFactorRepository {
  constructor(private readonly sql: Database) {}

  transaction<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
    return this.sql.transaction(work);
  }


  async findTotp(userId: string): Promise<TotpFactorRow | null> {
    const rows = await this.sql.query<TotpFactorRow>(`SELECT ${TOTP_FACTOR_COLUMNS} FROM totp_factors WHERE user_id = $1`, [userId]);
    return rows[0] ?? null;
  }

  /** A new pending authenticator, replacing a pending one; nothing when a confirmed one exists. */
  async putPendingTotp(userId: string, secretSealed: string): Promise<boolean> {
    const rows = await this.sql.query(
      `INSERT INTO totp_factors (user_id, secret_sealed) VALUES ($1, $2)
       ON CONFLICT (user_id) DO UPDATE SET secret_sealed = EXCLUDED.secret_sealed, created_at = now(), last_time_step = NULL
         WHERE totp_factors.confirmed_at IS NULL
       RETURNING 1`,
      [userId, secretSealed],
    );
    return rows.length > 0;
  }

  /**
   * Takes a code's time step: true when it is newer than every step accepted before (so a code, once accepted, is never
   * accepted again, even by two requests at once). `confirmed`: only a confirmed authenticator (sign-in, fresh checks);
   * false: only a pending one (its confirmation), which it confirms.
   */
  async takeTimeStep(tx: Transaction | undefined, userId: string, timeStep: number, confirmed: boolean): Promise<boolean> {
    const rows = await (tx ?? this.sql).query(
      confirmed
        ? `UPDATE totp_factors SET last_time_step = $2 WHERE user_id = $1 AND confirmed_at IS NOT NULL AND (last_time_step IS NULL OR last_time_step < $2) RETURNING 1`
        : `UPDATE totp_factors SET last_time_step = $2, confirmed_at = now() WHERE user_id = $1 AND confirmed_at IS NULL RETURNING 1`,
      [userId, timeStep],
    );
    return rows.length > 0;
  }

  /** Uses one recovery code (by digest): true once, false for an unknown or used one. */
  async useRecoveryCode(tx: Transaction | undefined, userId: string, codeHash: string): Promise<boolean> {
    const rows = await (tx ?? this.sql).query(`UPDATE recovery_codes SET used_at = now() WHERE user_id = $1 AND code_hash = $2 AND used_at IS NULL RETURNING 1`, [userId, codeHash]);
    return rows.length > 0;
  }

  async hasUnusedRecoveryCode(userId: string, codeHash: string): Promise<boolean> {
    const rows = await this.sql.query(`SELECT 1 FROM recovery_codes WHERE user_id = $1 AND code_hash = $2 AND used_at IS NULL`, [userId, codeHash]);
    return rows.length > 0;
  }

  /** The account's recovery codes become these (digests); the earlier ones stop working. */
  async replaceRecoveryCodes(tx: Transaction, userId: string, codeHashes: string[]): Promise<void> {
    await tx.query(`DELETE FROM recovery_codes WHERE user_id = $1`, [userId]);
    await tx.query(`INSERT INTO recovery_codes (user_id, code_hash) SELECT $1, unnest($2::text[])`, [userId, codeHashes]);
  }

  async unusedRecoveryCodes(userId: string): Promise<number> {
    const rows = await this.sql.query<{ count: number }>(`SELECT count(*)::int AS count FROM recovery_codes WHERE user_id = $1 AND used_at IS NULL`, [userId]);
    return rows[0]?.count ?? 0;
  }

  /**
   * Which second factors the account has: a confirmed authenticator, how many passkeys. The one place that decides
   * whether the account has a second factor (SecondFactorService.factorsOf).
   */
  async factorsOf(userId: string): Promise<{ totp: boolean; passkeys: number }> {
    const rows = await this.sql.query<{ totp: boolean; passkeys: number }>(
      `SELECT EXISTS (SELECT 1 FROM totp_factors WHERE user_id = $1 AND confirmed_at IS NOT NULL) AS totp,
              (SELECT count(*)::int FROM passkeys WHERE user_id = $1) AS passkeys`,
      [userId],
    );
    return rows[0] ?? { totp: false, passkeys: 0 };
  }

  /**
   * Removes the authenticator and the open sign-in challenges, and the recovery codes unless a passkey remains (they
   * stay the account's fallback); true when there was an authenticator.
   */
  async removeAll(tx: Transaction, userId: string): Promise<boolean> {
    const removed = await tx.query(`DELETE FROM totp_factors WHERE user_id = $1 RETURNING 1`, [userId]);
    await tx.query(`DELETE FROM mfa_challenges WHERE user_id = $1`, [userId]);
    await this.dropRecoveryCodesIfNoFactor(tx, userId);
    return removed.length > 0;
  }

  /** The recovery codes go once the account has no second factor left (no confirmed authenticator, no passkey). */
  async dropRecoveryCodesIfNoFactor(tx: Transaction, userId: string): Promise<void> {
    await tx.query(
      `DELETE FROM recovery_codes WHERE user_id = $1
         AND NOT EXISTS (SELECT 1 FROM totp_factors WHERE user_id = $1 AND confirmed_at IS NOT NULL)
         AND NOT EXISTS (SELECT 1 FROM passkeys WHERE user_id = $1)`,
      [userId],
    );
  }

  /** A new sign-in challenge; the account's expired ones and those beyond the newest MFA_CHALLENGES_PER_ACCOUNT go. */
  async createChallenge(userId: string, tokenHash: string, ttlSeconds: number): Promise<void> {
    await this.sql.transaction(async (tx) => {
      await tx.query(`INSERT INTO mfa_challenges (user_id, token_hash, expires_at) VALUES ($1, $2, now() + make_interval(secs => $3))`, [userId, tokenHash, ttlSeconds]);
      await tx.query(
        `DELETE FROM mfa_challenges WHERE user_id = $1 AND (expires_at <= now() OR id NOT IN (
           SELECT id FROM mfa_challenges WHERE user_id = $1 ORDER BY created_at DESC LIMIT $2))`,
        [userId, MFA_CHALLENGES_PER_ACCOUNT],
      );
    });
  }

  /** The account a live challenge belongs to, or null (unknown, expired or used). */
  async challengeOwner(tokenHash: string): Promise<string | null> {
    const rows = await this.sql.query<{ userId: string }>(`SELECT user_id AS "userId" FROM mfa_challenges WHERE token_hash = $1 AND expires_at > now()`, [tokenHash]);
    return rows[0]?.userId ?? null;
  }

  /** A live challenge: its account, the WebAuthn challenge a passkey must sign for it (null before one was asked for), the seconds it has left. */
  async liveChallenge(tokenHash: string): Promise<{ userId: string; webauthnChallenge: string | null; expiresIn: number } | null> {
    const rows = await this.sql.query<{ userId: string; webauthnChallenge: string | null; expiresIn: number }>(
      `SELECT user_id AS "userId", webauthn_challenge AS "webauthnChallenge", GREATEST(1, ceil(extract(epoch FROM expires_at - now())))::int AS "expiresIn"
       FROM mfa_challenges WHERE token_hash = $1 AND expires_at > now()`,
      [tokenHash],
    );
    return rows[0] ?? null;
  }

  /** Sets the WebAuthn challenge of a live sign-in challenge (a new one replaces the last); false when the challenge is gone. */
  async setWebAuthnChallenge(userId: string, tokenHash: string, webauthnChallenge: string): Promise<boolean> {
    const rows = await this.sql.query(
      `UPDATE mfa_challenges SET webauthn_challenge = $3 WHERE user_id = $1 AND token_hash = $2 AND expires_at > now() RETURNING 1`,
      [userId, tokenHash, webauthnChallenge],
    );
    return rows.length > 0;
  }

  /**
   * Ends a challenge once its factor was shown: true for the one request that ends it. `webauthnChallenge`: only while
   * the challenge still asks a passkey for that one (the one the assertion was judged against).
   */
  async consumeChallenge(tx: Transaction, userId: string, tokenHash: string, webauthnChallenge?: string): Promise<boolean> {
    const rows =
      webauthnChallenge === undefined
        ? await tx.query(`DELETE FROM mfa_challenges WHERE user_id = $1 AND token_hash = $2 AND expires_at > now() RETURNING 1`, [userId, tokenHash])
        : await tx.query(`DELETE FROM mfa_challenges WHERE user_id = $1 AND token_hash = $2 AND webauthn_challenge = $3 AND expires_at > now() RETURNING 1`, [
            userId,
            tokenHash,
            webauthnChallenge,
          ]);
    return rows.length > 0;
  }
}
