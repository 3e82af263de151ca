import { Injectable } from '@nestjs/common';
import type { JWK } from 'jose';
import { Database, PreparedQueries, type Transaction } from '#libs/database';

/** Arbitrary constant: the advisory lock that serialises adding a signing key across replicas. */
const SIGNING_KEY_LOCK_ID = 7_172_031;

/** An app (OAuth client) whose grant on an account was revoked, with the name it gave itself. */
export interface RevokedOAuthApp {
  clientId: string;
  clientName: string | null;
}

/** The OAuth rows both services read: the authorization server's keys, and whether a grant still stands. */
@Injectable()
export class OAuthAccessRepository {
  constructor(
    private readonly sql: Database,
    private readonly prepared: PreparedQueries,
  ) {}

  async findKey(use: string): Promise<JWK | undefined> {
    const rows: Array<{ jwk: JWK }> = await this.sql.query(`SELECT jwk FROM oauth_keys WHERE use = $1`, [use]);
    return rows[0]?.jwk;
  }

  /** Stores `jwk` unless a key for `use` exists already (another replica won the race); answers the stored one. */
  async storeKeyOnce(use: string, jwk: JWK): Promise<JWK> {
    await this.sql.query(`INSERT INTO oauth_keys (use, jwk) VALUES ($1, $2) ON CONFLICT (use) DO NOTHING`, [use, JSON.stringify(jwk)]);
    return (await this.findKey(use))!;
  }

  /** Every signing key, newest first. */
  async signingKeys(): Promise<JWK[]> {
    const rows: Array<{ jwk: JWK }> = await this.sql.query(`SELECT jwk FROM oauth_signing_keys ORDER BY created_at DESC, kid`);
    return rows.map((row) => row.jwk);
  }

  /** Whether a signing key of `alg` younger than `seconds` is stored. */
  async hasSigningKeyYoungerThan(alg: string, seconds: number): Promise<boolean> {
    const rows = await this.sql.query(`SELECT 1 FROM oauth_signing_keys WHERE jwk->>'alg' = $1 AND created_at > now() - make_interval(secs => $2)`, [alg, seconds]);
    return rows.length > 0;
  }

  /**
   * Adds `jwk` unless a key of its algorithm younger than `maxAgeSeconds` exists; answers whether it
   * did. Under a transaction-scoped advisory lock, so replicas checking at the same moment add one key, not several.
   */
  async addSigningKeyUnlessYounger(jwk: JWK, maxAgeSeconds: number): Promise<boolean> {
    return this.sql.transaction(async (tx) => {
      await tx.query(`SELECT pg_advisory_xact_lock($1)`, [SIGNING_KEY_LOCK_ID]);
      const fresh = await tx.query(`SELECT 1 FROM oauth_signing_keys WHERE jwk->>'alg' = $1 AND created_at > now() - make_interval(secs => $2)`, [jwk.alg, maxAgeSeconds]);
      if (fresh.length > 0) return false;
      await tx.query(`INSERT INTO oauth_signing_keys (kid, jwk) VALUES ($1, $2)`, [jwk.kid, JSON.stringify(jwk)]);
      return true;
    });
  }

  /** Deletes every key whose successor (same algorithm) has been signing for more than `seconds` (its tokens have expired); answers how many. */
  async deleteSigningKeysSupersededFor(seconds: number): Promise<number> {
    const deleted = await this.sql.query(
      `DELETE FROM oauth_signing_keys old WHERE EXISTS (
         SELECT 1 FROM oauth_signing_keys newer WHERE newer.jwk->>'alg' = old.jwk->>'alg' AND newer.created_at > old.created_at AND newer.created_at < now() - make_interval(secs => $1))
       RETURNING 1`,
      [seconds],
    );
    return deleted.length;
  }

  /** The kids of the stored signing keys, newest first (what the authorization server compares its own set with). */
  async signingKeyIds(): Promise<string[]> {
    const rows: Array<{ kid: string }> = await this.sql.query(`SELECT kid FROM oauth_signing_keys ORDER BY created_at DESC, kid`);
    return rows.map((row) => row.kid);
  }

  /**
   * Deletes every authorization-server row of the account (grants, the access and refresh tokens
   * and codes issued under them, its sign-in sessions there, consents in flight), inside the
   * caller's transaction; answers the apps that held a live grant, one per client. Every access
   * token checks its grant on use (isGrantAndKeyLive) and a refresh needs its grant, so they all
   * stop at once, on every replica, in both services.
   */
  async deleteAccountGrants(tx: Transaction, accountId: string): Promise<RevokedOAuthApp[]> {
    return tx.query<RevokedOAuthApp>(
      `WITH apps AS (
         SELECT g.client_id, COALESCE(c.payload->>'client_name', g.client_name) AS client_name, (g.payload->>'iat')::bigint AS iat
         FROM oauth_records g LEFT JOIN oauth_records c ON c.model = 'Client' AND c.id = g.client_id
         WHERE g.account_id = $1 AND g.model = 'Grant' AND (g.expires_at IS NULL OR g.expires_at > now())),
       gone AS (DELETE FROM oauth_records WHERE account_id = $1 RETURNING 1)
       SELECT client_id AS "clientId", (array_agg(client_name ORDER BY iat))[1] AS "clientName"
       FROM apps GROUP BY client_id ORDER BY min(iat), client_id`,
      [accountId],
    );
  }

  /**
   * The hot-path check of every OAuth request: the grant behind the token is still there (not
   * revoked, not expired) and the key that signed it is still stored (a key deleted from
   * oauth_signing_keys, e.g. a compromised one, ends its tokens at once on every replica, whatever
   * keys a verifier holds in memory). One statement: the key is a primary-key probe.
   */
  async isGrantAndKeyLive(accountId: string, grantId: string, kid: string): Promise<boolean> {
    const rows = await this.prepared.query(
      `SELECT 1 FROM oauth_records WHERE account_id = $1 AND model = 'Grant' AND id = $2 AND (expires_at IS NULL OR expires_at > now())
         AND EXISTS (SELECT 1 FROM oauth_signing_keys WHERE kid = $3)`,
      [accountId, grantId, kid],
    );
    return rows.length > 0;
  }
}
