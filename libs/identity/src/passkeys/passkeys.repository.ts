import { Injectable } from '@nestjs/common';
import { Database, type Transaction } from '#libs/database';

/** A registered passkey (WebAuthn credential) of an account. */
export interface PasskeyRow {
  userId: string;
  id: string;
  /** The credential id (base64url), unique across accounts. */
  credentialId: string;
  /** The COSE public key. */
  publicKey: Buffer;
  /** The authenticator’s signature counter (bigint: pg answers it as text). */
  signCount: string;
  transports: string[];
  name: string;
  createdAt: Date;
  lastUsedAt: Date | null;
}

export const PASSKEY_COLUMNS =
  'user_id AS "userId", id, credential_id AS "credentialId", public_key AS "publicKey", sign_count AS "signCount", transports, name, created_at AS "createdAt", last_used_at AS "lastUsedAt"';

export type WebAuthnChallengePurpose = 'registration' | 'sign_in';

/** How many registration challenges one account keeps at most (older ones go when a new one is made). */
const REGISTRATION_CHALLENGES_PER_ACCOUNT = 5;
/** How many expired challenges one new challenge sweeps at most (the rest go with the next ones). */
const EXPIRED_SWEEP_BATCH = 100;

/** The passkeys of one account at a time (owner id first), and the single-use WebAuthn challenges of their ceremonies. */
@Injectable()
export class PasskeysRepository {
  constructor(private readonly sql: Database) {}

  transaction<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
    return this.sql.transaction(work);
  }


  async list(userId: string): Promise<PasskeyRow[]> {
    return this.sql.query<PasskeyRow>(`SELECT ${PASSKEY_COLUMNS} FROM passkeys WHERE user_id = $1 ORDER BY created_at, id`, [userId]);
  }

  async find(userId: string, id: string): Promise<PasskeyRow | null> {
    const rows = await this.sql.query<PasskeyRow>(`SELECT ${PASSKEY_COLUMNS} FROM passkeys WHERE user_id = $1 AND id = $2`, [userId, id]);
    return rows[0] ?? null;
  }

  /** The passkey holding a credential id, whoever's it is (a passwordless sign-in names no account). */
  async findByCredentialId(credentialId: string): Promise<PasskeyRow | null> {
    const rows = await this.sql.query<PasskeyRow>(`SELECT ${PASSKEY_COLUMNS} FROM passkeys WHERE credential_id = $1`, [credentialId]);
    return rows[0] ?? null;
  }

  /** A new passkey; null when the credential id is registered already (to any account). */
  async insert(
    tx: Transaction,
    userId: string,
    passkey: { credentialId: string; publicKey: Uint8Array; signCount: number; transports: string[]; name: string },
  ): Promise<PasskeyRow | null> {
    const rows = await tx.query<PasskeyRow>(
      `INSERT INTO passkeys (user_id, credential_id, public_key, sign_count, transports, name) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (credential_id) DO NOTHING
       RETURNING ${PASSKEY_COLUMNS}`,
      [userId, passkey.credentialId, Buffer.from(passkey.publicKey), passkey.signCount, passkey.transports, passkey.name],
    );
    return rows[0] ?? null;
  }

  async rename(userId: string, id: string, name: string): Promise<PasskeyRow | null> {
    const rows = await this.sql.query<PasskeyRow>(`UPDATE passkeys SET name = $3 WHERE user_id = $1 AND id = $2 RETURNING ${PASSKEY_COLUMNS}`, [userId, id, name]);
    return rows[0] ?? null;
  }

  async remove(tx: Transaction, userId: string, id: string): Promise<PasskeyRow | null> {
    const rows = await tx.query<PasskeyRow>(`DELETE FROM passkeys WHERE user_id = $1 AND id = $2 RETURNING ${PASSKEY_COLUMNS}`, [userId, id]);
    return rows[0] ?? null;
  }

  /**
   * Records a use: the new counter and the time. Only while the counter is still the one the assertion was judged
   * against, so of two requests with one signature only one is counted.
   */
  async recordUse(tx: Transaction, userId: string, id: string, judgedCount: string, newCount: number): Promise<boolean> {
    const rows = await tx.query(
      `UPDATE passkeys SET sign_count = $4, last_used_at = now() WHERE user_id = $1 AND id = $2 AND sign_count = $3::bigint RETURNING 1`,
      [userId, id, judgedCount, newCount],
    );
    return rows.length > 0;
  }

  /**
   * A new challenge (`userId` null for a passwordless sign-in, which names no account yet). Expired challenges go
   * (a bounded batch each time), and an account keeps only its newest few registration challenges.
   */
  async createChallenge(userId: string | null, purpose: WebAuthnChallengePurpose, challenge: string, ttlSeconds: number): Promise<void> {
    await this.sql.transaction(async (tx) => {
      await tx.query(
        `INSERT INTO webauthn_challenges (user_id, purpose, challenge, expires_at) VALUES ($1, $2, $3, now() + make_interval(secs => $4))`,
        [userId, purpose, challenge, ttlSeconds],
      );
      await tx.query(`DELETE FROM webauthn_challenges WHERE id IN (SELECT id FROM webauthn_challenges WHERE expires_at <= now() LIMIT $1)`, [EXPIRED_SWEEP_BATCH]);
      if (userId !== null) {
        await tx.query(
          `DELETE FROM webauthn_challenges WHERE user_id = $1 AND purpose = $2 AND id NOT IN (
             SELECT id FROM webauthn_challenges WHERE user_id = $1 AND purpose = $2 ORDER BY created_at DESC LIMIT $3)`,
          [userId, purpose, REGISTRATION_CHALLENGES_PER_ACCOUNT],
        );
      }
    });
  }

  /** Uses up a live challenge of the account (`userId` null: nobody's, a passwordless sign-in): true for the one request that does. */
  async consumeChallenge(userId: string | null, purpose: WebAuthnChallengePurpose, challenge: string): Promise<boolean> {
    const rows = await this.sql.query(
      `DELETE FROM webauthn_challenges WHERE user_id IS NOT DISTINCT FROM $1 AND purpose = $2 AND challenge = $3 AND expires_at > now() RETURNING 1`,
      [userId, purpose, challenge],
    );
    return rows.length > 0;
  }
}
