import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The authorization server's signing keys get a table of their own, several at a time: the newest
 * signs, the older ones still verify until they are retired. The existing key moves over with its kid.
 */
export class OAuthSigningKeyRotation1763820000000 implements MigrationInterface {
  name = 'OAuthSigningKeyRotation1763820000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE oauth_signing_keys (
        kid text PRIMARY KEY,
        jwk jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE INDEX oauth_signing_keys_created_at_idx ON oauth_signing_keys (created_at)`);
    await queryRunner.query(`INSERT INTO oauth_signing_keys (kid, jwk, created_at) SELECT jwk->>'kid', jwk, created_at FROM oauth_keys WHERE use = 'signing'`);
    await queryRunner.query(`DELETE FROM oauth_keys WHERE use = 'signing'`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `INSERT INTO oauth_keys (use, jwk, created_at) SELECT 'signing', jwk, created_at FROM oauth_signing_keys ORDER BY created_at DESC LIMIT 1`,
    );
    await queryRunner.query(`DROP TABLE oauth_signing_keys`);
  }
}
