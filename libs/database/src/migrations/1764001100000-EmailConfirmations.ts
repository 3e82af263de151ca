import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Single-use e-mail tokens (stored as SHA-256 digests of 32 random bytes): `verify` proves the account's address
 * (sets users.email_confirmed), `change` confirms a new address at that address, `revert` (mailed to the old address
 * after a change) puts the old address back. `email` is the address the token is about (the one it was mailed to for
 * verify and change, the one to restore for revert). Removed with the account (ON DELETE CASCADE); used or expired
 * tokens go with the next token of their account and purpose.
 */
export class EmailConfirmations1764001100000 implements MigrationInterface {
  name = 'EmailConfirmations1764001100000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE email_tokens (
        token_hash text NOT NULL CONSTRAINT email_tokens_pkey PRIMARY KEY,
        user_id uuid NOT NULL CONSTRAINT email_tokens_user_id_fkey REFERENCES users(id) ON DELETE CASCADE,
        purpose text NOT NULL CONSTRAINT email_tokens_purpose_check CHECK (purpose IN ('verify', 'change', 'revert')),
        email text NOT NULL,
        email_canonical text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        used_at timestamptz
      )`);
    await queryRunner.query(`CREATE INDEX email_tokens_user_purpose_idx ON email_tokens (user_id, purpose)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE email_tokens`);
  }
}
