import { Injectable } from '@nestjs/common';
import { canonicalEmail } from '../accounts/canonical-email.js';
import { USER_COLUMNS, type UserRow } from '../accounts/account.rows.js';
import { Database, type Transaction } from '#libs/database';

export interface NewUser {
  userKey: string;
  username: string;
  email: string;
  passwordHash: string;
}

/** Users and the password-reset records. */
@Injectable()
export class AuthRepository {
  constructor(private readonly sql: Database) {}

  transaction<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
    return this.sql.transaction(work);
  }


  /** By e-mail in its canonical form (the unique index is on email_canonical). */
  async findUserByEmail(email: string): Promise<UserRow | null> {
    const rows: UserRow[] = await this.sql.query(`SELECT ${USER_COLUMNS} FROM users WHERE email_canonical = $1`, [canonicalEmail(email)]);
    return rows[0] ?? null;
  }

  async usernameTaken(username: string): Promise<boolean> {
    const rows = await this.sql.query(`SELECT 1 FROM users WHERE lower(username) = lower($1)`, [username]);
    return rows.length > 0;
  }

  async insertUser(tx: Transaction, user: NewUser): Promise<UserRow> {
    const rows = await tx.query<UserRow>(
      `INSERT INTO users (user_key, username, email, email_canonical, password_hash) VALUES ($1, $2, $3, $4, $5) RETURNING ${USER_COLUMNS}`,
      [user.userKey, user.username, user.email, canonicalEmail(user.email), user.passwordHash],
    );
    return rows[0];
  }

  /** Answers the account's e-mail. */
  async setPassword(tx: Transaction, userId: string, passwordHash: string): Promise<string> {
    const rows = await tx.query<{ email: string }>(`UPDATE users SET password_hash = $2, password_changed_at = now(), updated_at = now() WHERE id = $1 RETURNING email`, [userId, passwordHash]);
    return rows[0].email;
  }

  /**
   * Replaces the user's outstanding reset code (at most one per user). Its tries are counted
   * per caller in the rate-limit store, not in `attempts` (kept at 0 for older replicas).
   */
  async saveResetCode(userId: string, codeHash: string, ttlSeconds: number): Promise<void> {
    await this.sql.query(
      `INSERT INTO password_reset_codes (user_id, code_hash, attempts, created_at, expires_at)
       VALUES ($1, $2, 0, now(), now() + make_interval(secs => $3))
       ON CONFLICT (user_id) DO UPDATE SET code_hash = EXCLUDED.code_hash, attempts = 0, created_at = now(), expires_at = EXCLUDED.expires_at`,
      [userId, codeHash, ttlSeconds],
    );
  }

  /** The live (unexpired) reset code of the account using this e-mail, if any. */
  async findLiveResetCode(email: string): Promise<{ userId: string; codeHash: string } | undefined> {
    const rows: Array<{ user_id: string; code_hash: string }> = await this.sql.query(
      `SELECT c.user_id, c.code_hash FROM users u JOIN password_reset_codes c ON c.user_id = u.id
       WHERE u.email_canonical = $1 AND c.expires_at > now()`,
      [canonicalEmail(email)],
    );
    return rows[0] ? { userId: rows[0].user_id, codeHash: rows[0].code_hash } : undefined;
  }

  /** Trades a verified code for a reset token, once: false if the code was consumed meanwhile. */
  exchangeCodeForToken(userId: string, codeHash: string, tokenHash: string, ttlSeconds: number): Promise<boolean> {
    return this.sql.transaction(async (tx) => {
      const deleted = await tx.query(`DELETE FROM password_reset_codes WHERE user_id = $1 AND code_hash = $2 RETURNING user_id`, [userId, codeHash]);
      if (deleted.length === 0) return false;
      await tx.query(`INSERT INTO password_reset_tokens (token_hash, user_id, expires_at) VALUES ($1, $2, now() + make_interval(secs => $3))`, [
        tokenHash,
        userId,
        ttlSeconds,
      ]);
      return true;
    });
  }

  /** The owner of a live (unused, unexpired) reset token, without using it. */
  async findResetTokenOwner(tokenHash: string): Promise<string | undefined> {
    const rows = await this.sql.query<{ user_id: string }>(
      `SELECT user_id FROM password_reset_tokens WHERE token_hash = $1 AND used_at IS NULL AND expires_at > now()`,
      [tokenHash],
    );
    return rows[0]?.user_id;
  }

  /** Marks a live reset token used, once; answers its owner, or undefined if it was not live. */
  async useResetToken(tx: Transaction, tokenHash: string): Promise<string | undefined> {
        const rows = await tx.query<{ user_id: string }>(
      `UPDATE password_reset_tokens SET used_at = now() WHERE token_hash = $1 AND used_at IS NULL AND expires_at > now() RETURNING user_id`,
      [tokenHash],
    );
    return rows[0]?.user_id;
  }

  /** After a password change no earlier code or reset token may be used. */
  async discardResetState(tx: Transaction, userId: string): Promise<void> {
        await tx.query(`DELETE FROM password_reset_codes WHERE user_id = $1`, [userId]);
    await tx.query(`UPDATE password_reset_tokens SET used_at = now() WHERE user_id = $1 AND used_at IS NULL`, [userId]);
  }
}
