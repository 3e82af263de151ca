import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { JWK } from 'jose';
import { DataSource } from 'typeorm';
import { PreparedQueries } from '#libs/database';

/** The OAuth rows both services read: the authorization server's keys, and whether a grant still stands. */
@Injectable()
export class OAuthAccessRepository {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly prepared: PreparedQueries,
  ) {}

  async findKey(use: string): Promise<JWK | undefined> {
    const rows: Array<{ jwk: JWK }> = await this.dataSource.query(`SELECT jwk FROM oauth_keys WHERE use = $1`, [use]);
    return rows[0]?.jwk;
  }

  /** Stores `jwk` unless a key for `use` exists already (another replica won the race); answers the stored one. */
  async storeKeyOnce(use: string, jwk: JWK): Promise<JWK> {
    await this.dataSource.query(`INSERT INTO oauth_keys (use, jwk) VALUES ($1, $2) ON CONFLICT (use) DO NOTHING`, [use, JSON.stringify(jwk)]);
    return (await this.findKey(use))!;
  }

  /** The hot-path check of every OAuth request: the grant behind the token is still there (not revoked, not expired). */
  async isGrantLive(accountId: string, grantId: string): Promise<boolean> {
    const rows = await this.prepared.query(
      `SELECT 1 FROM oauth_records WHERE account_id = $1 AND model = 'Grant' AND id = $2 AND (expires_at IS NULL OR expires_at > now())`,
      [accountId, grantId],
    );
    return rows.length > 0;
  }
}
