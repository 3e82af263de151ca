import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Signed reporter identity. Each site may hold one identity secret (sealed with the SecretSealer: the server
 * reads it back to verify the host's tokens), with the time it was issued; each feedback row may carry the
 * reporter the host vouched for ({id, email, name}), null for anonymous submissions and earlier rows.
 */
export class ReporterIdentity1764001500000 implements MigrationInterface {
  name = 'ReporterIdentity1764001500000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE sites ADD COLUMN identity_secret_sealed text NULL, ADD COLUMN identity_secret_created_at timestamptz NULL`);
    await queryRunner.query(`ALTER TABLE feedback ADD COLUMN reporter jsonb NULL`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE feedback DROP COLUMN reporter`);
    await queryRunner.query(`ALTER TABLE sites DROP COLUMN identity_secret_sealed, DROP COLUMN identity_secret_created_at`);
  }
}
