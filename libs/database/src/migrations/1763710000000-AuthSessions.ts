import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Refresh-token rotation history (reuse detection and the retry grace) and the two steps
 * of password reset: the e-mailed code and the single-use reset token. Secrets are stored
 * only as hashes (codes as a keyed HMAC, since six digits are easy to brute-force offline).
 */
export class AuthSessions1763710000000 implements MigrationInterface {
  name = 'AuthSessions1763710000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE refresh_token_history (
        token_hash text PRIMARY KEY,
        session_id uuid NOT NULL CONSTRAINT refresh_token_history_session_id_fkey REFERENCES sessions (id) ON DELETE CASCADE,
        user_id uuid NOT NULL CONSTRAINT refresh_token_history_user_id_fkey REFERENCES users (id) ON DELETE CASCADE,
        successor_hash text NOT NULL,
        retry_key_hash text,
        successor_sealed text,
        rotated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE INDEX refresh_token_history_session_id_idx ON refresh_token_history (session_id, rotated_at)`);
    await queryRunner.query(`CREATE INDEX refresh_token_history_user_id_idx ON refresh_token_history (user_id)`);

    await queryRunner.query(`
      CREATE TABLE password_reset_codes (
        user_id uuid PRIMARY KEY CONSTRAINT password_reset_codes_user_id_fkey REFERENCES users (id) ON DELETE CASCADE,
        code_hash text NOT NULL,
        attempts integer NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL
      )`);

    await queryRunner.query(`
      CREATE TABLE password_reset_tokens (
        token_hash text PRIMARY KEY,
        user_id uuid NOT NULL CONSTRAINT password_reset_tokens_user_id_fkey REFERENCES users (id) ON DELETE CASCADE,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        used_at timestamptz
      )`);
    await queryRunner.query(`CREATE INDEX password_reset_tokens_user_id_idx ON password_reset_tokens (user_id)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE password_reset_tokens`);
    await queryRunner.query(`DROP TABLE password_reset_codes`);
    await queryRunner.query(`DROP TABLE refresh_token_history`);
  }
}
