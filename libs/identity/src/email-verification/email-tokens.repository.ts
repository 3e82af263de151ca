import { Injectable } from '@nestjs/common';
import { canonicalEmail } from '../accounts/canonical-email.js';
import { Database, type Transaction } from '#libs/database';

export type EmailTokenPurpose = 'verify' | 'change' | 'revert';

/** What a used token was about. */
export interface UsedEmailToken {
  userId: string;
  email: string;
  emailCanonical: string;
}

/** The single-use e-mail tokens (verify, change, revert) and the account's address they set. */
@Injectable()
export class EmailTokensRepository {
  constructor(private readonly sql: Database) {}

  transaction<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
    return this.sql.transaction(work);
  }


  /** Whether another account already uses this address (canonical form), as signup's unique index would say. */
  async emailInUse(email: string): Promise<boolean> {
    const rows = await this.sql.query(`SELECT 1 FROM users WHERE email_canonical = $1`, [canonicalEmail(email)]);
    return rows.length > 0;
  }

  /** A new token of this purpose for the account; every earlier one of the same purpose stops working. */
  async replaceToken(tx: Transaction | undefined, userId: string, purpose: EmailTokenPurpose, tokenHash: string, email: string, ttlSeconds: number): Promise<void> {
    const run = async (t: Transaction) => {
      await t.query(`DELETE FROM email_tokens WHERE user_id = $1 AND purpose = $2`, [userId, purpose]);
      await t.query(
        `INSERT INTO email_tokens (token_hash, user_id, purpose, email, email_canonical, expires_at)
         VALUES ($1, $2, $3, $4, $5, now() + make_interval(secs => $6))`,
        [tokenHash, userId, purpose, email, canonicalEmail(email), ttlSeconds],
      );
    };
    if (tx) await run(tx);
    else await this.sql.transaction(run);
  }

  /** Marks a live (unused, unexpired) token of this purpose used, once; undefined when it was not live. */
  async useToken(tx: Transaction, purpose: EmailTokenPurpose, tokenHash: string): Promise<UsedEmailToken | undefined> {
    const rows = await tx.query<UsedEmailToken>(
      `UPDATE email_tokens SET used_at = now()
       WHERE token_hash = $1 AND purpose = $2 AND used_at IS NULL AND expires_at > now()
       RETURNING user_id AS "userId", email, email_canonical AS "emailCanonical"`,
      [tokenHash, purpose],
    );
    return rows[0];
  }

  /** Sets email_confirmed when the account's address is still the one the token was mailed to; answers whether it did. */
  async confirmAddress(tx: Transaction, userId: string, emailCanonical: string): Promise<boolean> {
    const rows = await tx.query(`UPDATE users SET email_confirmed = 1, updated_at = now() WHERE id = $1 AND email_canonical = $2 RETURNING 1`, [userId, emailCanonical]);
    return rows.length > 0;
  }

  /** The account's address before a change, the row locked for it. */
  async lockAddress(tx: Transaction, userId: string): Promise<string | undefined> {
    const rows = await tx.query<{ email: string }>(`SELECT email FROM users WHERE id = $1 FOR NO KEY UPDATE`, [userId]);
    return rows[0]?.email;
  }

  /** A new (proven) address for the account; a unique violation on users_email_canonical_key when another account has it. */
  async setAddress(tx: Transaction, userId: string, email: string): Promise<void> {
    await tx.query(`UPDATE users SET email = $2, email_canonical = $3, email_confirmed = 1, updated_at = now() WHERE id = $1`, [userId, email, canonicalEmail(email)]);
  }

  /** Unused tokens of these purposes stop working (a revert ends pending changes and later reverts). */
  async discardTokens(tx: Transaction, userId: string, purposes: EmailTokenPurpose[]): Promise<void> {
    await tx.query(`DELETE FROM email_tokens WHERE user_id = $1 AND purpose = ANY($2::text[]) AND used_at IS NULL`, [userId, purposes]);
  }
}
