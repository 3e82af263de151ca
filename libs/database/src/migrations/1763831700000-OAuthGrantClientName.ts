import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The client name shown at consent, kept beside the grant: a client that signs in with a client ID
 * metadata document (a URL client id) is never stored as a registered client, so connected apps
 * had no name for it. oidc-provider's own upserts of the row leave it as it is (see OAuthRecordsRepository).
 */
export class OAuthGrantClientName1763831700000 implements MigrationInterface {
  name = 'OAuthGrantClientName1763831700000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE oauth_records ADD COLUMN client_name text`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE oauth_records DROP COLUMN client_name`);
  }
}
