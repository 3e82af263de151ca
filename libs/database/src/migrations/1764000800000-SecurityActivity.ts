import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The security activity log of each account (sign-ins, failed sign-ins, password changes and resets, session
 * revocations, API keys, connected apps, beta access, subscription changes), read by its owner through
 * GET /api/v1/account/activity. Removed with the account (ON DELETE CASCADE); bounded by a sweep that keeps
 * 90 days and at most the newest 1000 entries per account. The second index serves the age sweep.
 */
export class SecurityActivity1764000800000 implements MigrationInterface {
  name = 'SecurityActivity1764000800000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE security_activity (
        id uuid NOT NULL DEFAULT gen_random_uuid() CONSTRAINT security_activity_pkey PRIMARY KEY,
        user_id uuid NOT NULL CONSTRAINT security_activity_user_id_fkey REFERENCES users(id) ON DELETE CASCADE,
        type text NOT NULL,
        ip_address text,
        user_agent text,
        details jsonb NOT NULL DEFAULT '{}'::jsonb,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp()
      )`);
    await queryRunner.query(`CREATE INDEX security_activity_user_created_idx ON security_activity (user_id, created_at DESC, id DESC)`);
    await queryRunner.query(`CREATE INDEX security_activity_created_at_idx ON security_activity (created_at)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE security_activity`);
  }
}
