import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { isUuid } from '#libs/common';
import { Database } from '#libs/database';

/**
 * Models whose id is itself a bearer secret (the code or token handed to the client): stored
 * under its SHA-256, like API keys, so the table never holds a usable credential.
 */
const SECRET_ID_MODELS: ReadonlySet<string> = new Set(['AuthorizationCode', 'RefreshToken', 'AccessToken', 'ClientCredentials', 'RegistrationAccessToken']);


export type OAuthPayload = Record<string, unknown> & { accountId?: string; clientId?: string; grantId?: string; uid?: string; userCode?: string };

function storedId(model: string, id: string): string {
  return SECRET_ID_MODELS.has(model) ? createHash('sha256').update(id).digest('hex') : id;
}

/** A live grant of an account, with the name its client registered (or, for a URL client id, the one its document gave at consent). */
export interface GrantRow {
  grantId: string;
  clientId: string;
  clientName: string | null;
  /** oidc-provider's record of what was allowed: scope strings per resource indicator. */
  resources: Record<string, string>;
  createdAt: Date;
}

/** The authorization server's storage (table oauth_records, see its migration); the only code that touches it. */
@Injectable()
export class OAuthRecordsRepository {
  constructor(private readonly sql: Database) {}

  async upsert(model: string, id: string, payload: OAuthPayload, expiresAt: Date | null): Promise<void> {
    const secretId = SECRET_ID_MODELS.has(model);
    // A secret id must not sit in the payload either (oidc-provider keeps it as `jti`): find() puts it back.
    const stored = secretId ? { ...payload, jti: undefined } : payload;
    const accountId = isUuid(payload.accountId) ? payload.accountId : null;
    // client_name is not oidc-provider's: its saves leave it as it is (recordGrantClientName sets it).
    await this.sql.query(
      `INSERT INTO oauth_records (model, id, payload, account_id, client_id, grant_id, uid, user_code, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
       ON CONFLICT (model, id) DO UPDATE SET payload = EXCLUDED.payload, account_id = EXCLUDED.account_id, client_id = EXCLUDED.client_id,
         grant_id = EXCLUDED.grant_id, uid = EXCLUDED.uid, user_code = EXCLUDED.user_code, expires_at = EXCLUDED.expires_at`,
      [
        model,
        storedId(model, id),
        JSON.stringify(stored),
        accountId,
        payload.clientId ?? (model === 'Client' ? id : null),
        payload.grantId ?? (model === 'Grant' ? id : null),
        payload.uid ?? null,
        payload.userCode ?? null,
        expiresAt,
      ],
    );
  }

  async find(model: string, id: string): Promise<OAuthPayload | undefined> {
    return this.findWhere(model, 'id', storedId(model, id), SECRET_ID_MODELS.has(model) ? id : undefined);
  }

  findByUid(model: string, uid: string): Promise<OAuthPayload | undefined> {
    return this.findWhere(model, 'uid', uid);
  }

  findByUserCode(model: string, userCode: string): Promise<OAuthPayload | undefined> {
    return this.findWhere(model, 'user_code', userCode);
  }

  async consume(model: string, id: string): Promise<void> {
    await this.sql.query(`UPDATE oauth_records SET consumed_at = now() WHERE model = $1 AND id = $2`, [model, storedId(model, id)]);
  }

  async destroy(model: string, id: string): Promise<void> {
    await this.sql.query(`DELETE FROM oauth_records WHERE model = $1 AND id = $2`, [model, storedId(model, id)]);
  }

  async revokeByGrantId(model: string, grantId: string): Promise<void> {
    await this.sql.query(`DELETE FROM oauth_records WHERE model = $1 AND grant_id = $2`, [model, grantId]);
  }

  /** Keeps the client name the account saw at consent on its grant (the client's own claim, e.g. from its metadata document). */
  async recordGrantClientName(accountId: string, grantId: string, clientName: string): Promise<void> {
    await this.sql.query(`UPDATE oauth_records SET client_name = $3 WHERE account_id = $1 AND model = 'Grant' AND id = $2`, [accountId, grantId, clientName]);
  }

  async accountExists(accountId: string): Promise<boolean> {
    if (!isUuid(accountId)) return false;
    const rows = await this.sql.query(`SELECT 1 FROM users WHERE id = $1`, [accountId]);
    return rows.length > 0;
  }

  async listGrants(accountId: string): Promise<GrantRow[]> {
    return this.sql.query(
      `SELECT g.id AS "grantId", g.client_id AS "clientId", COALESCE(c.payload->>'client_name', g.client_name) AS "clientName",
              COALESCE(g.payload->'resources', '{}'::jsonb) AS resources, to_timestamp((g.payload->>'iat')::bigint) AS "createdAt"
       FROM oauth_records g LEFT JOIN oauth_records c ON c.model = 'Client' AND c.id = g.client_id
       WHERE g.account_id = $1 AND g.model = 'Grant' AND (g.expires_at IS NULL OR g.expires_at > now())
       ORDER BY (g.payload->>'iat')::bigint, g.id`,
      [accountId],
    );
  }

  /** Deletes every grant the account gave the client and everything issued under them; answers how many grants. */
  async deleteClientGrants(accountId: string, clientId: string): Promise<number> {
    const rows: Array<{ grants: number }> = await this.sql.query(
      `WITH grants AS (SELECT id FROM oauth_records WHERE account_id = $1 AND model = 'Grant' AND client_id = $2),
            gone AS (DELETE FROM oauth_records WHERE account_id = $1 AND grant_id IN (SELECT id FROM grants) RETURNING model)
       SELECT count(*) FILTER (WHERE model = 'Grant')::int AS grants FROM gone`,
      [accountId, clientId],
    );
    return rows[0]?.grants ?? 0;
  }

  /**
   * Deletes up to `batchSize` expired rows (they are never read: find filters them); answers how many.
   * SKIP LOCKED: replicas sweeping at the same moment take disjoint rows and never wait on each other
   * or on a write in flight.
   */
  async deleteExpired(batchSize: number): Promise<number> {
    const deleted = await this.sql.query(
      `DELETE FROM oauth_records WHERE (model, id) IN (
         SELECT model, id FROM oauth_records WHERE expires_at <= now() ORDER BY expires_at LIMIT $1 FOR UPDATE SKIP LOCKED)
       RETURNING 1`,
      [batchSize],
    );
    return deleted.length;
  }

  /**
   * Deletes up to `batchSize` registered clients issued before `issuedBefore` that no grant holds
   * (never connected, or every connection gone); answers how many. SKIP LOCKED as deleteExpired.
   */
  async deleteUnusedClients(issuedBefore: Date, batchSize: number): Promise<number> {
    const deleted = await this.sql.query(
      `DELETE FROM oauth_records WHERE model = 'Client' AND id IN (
         SELECT c.id FROM oauth_records c
         WHERE c.model = 'Client' AND (c.payload->>'client_id_issued_at')::bigint < $1
           AND NOT EXISTS (SELECT 1 FROM oauth_records g WHERE g.model = 'Grant' AND g.client_id = c.id)
         LIMIT $2 FOR UPDATE SKIP LOCKED)
       RETURNING 1`,
      [Math.floor(issuedBefore.getTime() / 1000), batchSize],
    );
    return deleted.length;
  }

  private async findWhere(model: string, column: 'id' | 'uid' | 'user_code', value: string, secretId?: string): Promise<OAuthPayload | undefined> {
    const rows: Array<{ payload: OAuthPayload; consumed: boolean }> = await this.sql.query(
      `SELECT payload, consumed_at IS NOT NULL AS consumed FROM oauth_records
       WHERE model = $1 AND ${column} = $2 AND (expires_at IS NULL OR expires_at > now())`,
      [model, value],
    );
    const row = rows[0];
    if (!row) return undefined;
    return { ...row.payload, ...(secretId !== undefined ? { jti: secretId } : {}), ...(row.consumed ? { consumed: true } : {}) };
  }
}
