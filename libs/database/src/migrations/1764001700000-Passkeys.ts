import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Passkeys (WebAuthn, issue 29): each account's registered credentials (owner first), the credential id unique across
 * accounts (a passwordless sign-in finds its account by it), the COSE public key, the authenticator's sign counter, its
 * transports and a name the owner gives it. `webauthn_challenges`: the single-use, short-lived challenges of a passkey
 * registration (an account's) and of a passwordless sign-in (nobody's yet), swept when new ones are made. A sign-in
 * that answered MFA_REQUIRED keeps its WebAuthn challenge on its own `mfa_challenges` row (used up with it). Every row
 * goes with its account (ON DELETE CASCADE).
 */
export class Passkeys1764001700000 implements MigrationInterface {
  name = 'Passkeys1764001700000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE passkeys (
        user_id uuid NOT NULL CONSTRAINT passkeys_user_id_fkey REFERENCES users(id) ON DELETE CASCADE,
        id uuid NOT NULL DEFAULT gen_random_uuid() CONSTRAINT passkeys_pkey PRIMARY KEY,
        credential_id text NOT NULL CONSTRAINT passkeys_credential_id_key UNIQUE,
        public_key bytea NOT NULL,
        sign_count bigint NOT NULL DEFAULT 0,
        transports text[] NOT NULL DEFAULT '{}',
        name text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        last_used_at timestamptz
      )`);
    await queryRunner.query(`CREATE INDEX passkeys_user_created_idx ON passkeys (user_id, created_at)`);
    await queryRunner.query(`
      CREATE TABLE webauthn_challenges (
        id uuid NOT NULL DEFAULT gen_random_uuid() CONSTRAINT webauthn_challenges_pkey PRIMARY KEY,
        user_id uuid CONSTRAINT webauthn_challenges_user_id_fkey REFERENCES users(id) ON DELETE CASCADE,
        purpose text NOT NULL CONSTRAINT webauthn_challenges_purpose_check CHECK (purpose IN ('registration', 'sign_in')),
        challenge text NOT NULL CONSTRAINT webauthn_challenges_challenge_key UNIQUE,
        expires_at timestamptz NOT NULL,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp()
      )`);
    await queryRunner.query(`CREATE INDEX webauthn_challenges_expires_idx ON webauthn_challenges (expires_at)`);
    await queryRunner.query(`CREATE INDEX webauthn_challenges_user_created_idx ON webauthn_challenges (user_id, created_at DESC)`);
    await queryRunner.query(`ALTER TABLE mfa_challenges ADD COLUMN webauthn_challenge text`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE mfa_challenges DROP COLUMN webauthn_challenge`);
    await queryRunner.query(`DROP TABLE webauthn_challenges`);
    await queryRunner.query(`DROP TABLE passkeys`);
  }
}
