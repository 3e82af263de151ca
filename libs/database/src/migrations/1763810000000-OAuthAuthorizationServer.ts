import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The OAuth authorization server's storage (oidc-provider): one table for every model it keeps
 * (registered clients, grants, authorization codes, refresh tokens, interactions, sessions), the
 * model's own payload as JSON, with the columns it is looked up by. Rows of an account go with
 * the account. Signing keys are generated once (by the first replica to start) and kept here, so
 * every replica signs and verifies with the same keys.
 */
export class OAuthAuthorizationServer1763810000000 implements MigrationInterface {
  name = 'OAuthAuthorizationServer1763810000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE oauth_records (
        model text NOT NULL,
        id text NOT NULL,
        payload jsonb NOT NULL,
        account_id uuid CONSTRAINT oauth_records_account_id_fkey REFERENCES users (id) ON DELETE CASCADE,
        client_id text,
        grant_id text,
        uid text,
        user_code text,
        expires_at timestamptz,
        consumed_at timestamptz,
        CONSTRAINT oauth_records_pkey PRIMARY KEY (model, id)
      )`);
    await queryRunner.query(`CREATE INDEX oauth_records_grant_id_idx ON oauth_records (grant_id) WHERE grant_id IS NOT NULL`);
    await queryRunner.query(`CREATE INDEX oauth_records_uid_idx ON oauth_records (model, uid) WHERE uid IS NOT NULL`);
    await queryRunner.query(`CREATE INDEX oauth_records_user_code_idx ON oauth_records (model, user_code) WHERE user_code IS NOT NULL`);
    await queryRunner.query(`CREATE INDEX oauth_records_account_id_model_idx ON oauth_records (account_id, model) WHERE account_id IS NOT NULL`);
    await queryRunner.query(`CREATE INDEX oauth_records_expires_at_idx ON oauth_records (expires_at) WHERE expires_at IS NOT NULL`);
    await queryRunner.query(`
      CREATE TABLE oauth_keys (
        use text PRIMARY KEY,
        jwk jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE oauth_keys`);
    await queryRunner.query(`DROP TABLE oauth_records`);
  }
}
