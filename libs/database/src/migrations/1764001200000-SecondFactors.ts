import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The TOTP second factor (issue 29): one authenticator per account, its secret sealed with AES-256-GCM under a key
 * derived from the service secret, pending until a first code confirms it; `last_time_step` is the newest time step a
 * code was accepted for (a code is never accepted twice). Ten single-use recovery codes per account, stored as SHA-256
 * digests. The sign-in challenges an account with a factor answers (401 MFA_REQUIRED), single-use and short-lived,
 * stored as digests. Every row goes with its account (ON DELETE CASCADE).
 */
export class SecondFactors1764001200000 implements MigrationInterface {
  name = 'SecondFactors1764001200000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE totp_factors (
        user_id uuid NOT NULL CONSTRAINT totp_factors_pkey PRIMARY KEY CONSTRAINT totp_factors_user_id_fkey REFERENCES users(id) ON DELETE CASCADE,
        secret_sealed text NOT NULL,
        confirmed_at timestamptz,
        last_time_step bigint,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`
      CREATE TABLE recovery_codes (
        id uuid NOT NULL DEFAULT gen_random_uuid() CONSTRAINT recovery_codes_pkey PRIMARY KEY,
        user_id uuid NOT NULL CONSTRAINT recovery_codes_user_id_fkey REFERENCES users(id) ON DELETE CASCADE,
        code_hash text NOT NULL,
        used_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT recovery_codes_user_code_key UNIQUE (user_id, code_hash)
      )`);
    await queryRunner.query(`
      CREATE TABLE mfa_challenges (
        id uuid NOT NULL DEFAULT gen_random_uuid() CONSTRAINT mfa_challenges_pkey PRIMARY KEY,
        user_id uuid NOT NULL CONSTRAINT mfa_challenges_user_id_fkey REFERENCES users(id) ON DELETE CASCADE,
        token_hash text NOT NULL CONSTRAINT mfa_challenges_token_hash_key UNIQUE,
        expires_at timestamptz NOT NULL,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp()
      )`);
    await queryRunner.query(`CREATE INDEX mfa_challenges_user_created_idx ON mfa_challenges (user_id, created_at DESC)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE mfa_challenges`);
    await queryRunner.query(`DROP TABLE recovery_codes`);
    await queryRunner.query(`DROP TABLE totp_factors`);
  }
}
