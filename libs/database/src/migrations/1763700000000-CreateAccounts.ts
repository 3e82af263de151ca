import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Accounts, refresh sessions, API keys, subscriptions and the shared rate-limit counters. */
export class CreateAccounts1763700000000 implements MigrationInterface {
  name = 'CreateAccounts1763700000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE users (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        user_key text NOT NULL,
        name text,
        username text NOT NULL,
        email text NOT NULL,
        password_hash text NOT NULL,
        privilege text NOT NULL DEFAULT 'user' CONSTRAINT users_privilege_check CHECK (privilege IN ('user', 'admin')),
        email_confirmed integer NOT NULL DEFAULT 0,
        date_joined timestamptz NOT NULL DEFAULT now(),
        password_changed_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE UNIQUE INDEX users_user_key_key ON users (user_key)`);
    await queryRunner.query(`CREATE UNIQUE INDEX users_email_lower_key ON users (lower(email))`);
    await queryRunner.query(`CREATE UNIQUE INDEX users_username_lower_key ON users (lower(username))`);

    await queryRunner.query(`
      CREATE TABLE sessions (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        refresh_token_hash text NOT NULL,
        user_agent text,
        ip_address text,
        created_at timestamptz NOT NULL DEFAULT now(),
        last_used_at timestamptz,
        expires_at timestamptz NOT NULL,
        revoked_at timestamptz
      )`);
    await queryRunner.query(`CREATE UNIQUE INDEX sessions_refresh_token_hash_key ON sessions (refresh_token_hash)`);
    await queryRunner.query(`CREATE INDEX sessions_user_id_created_at_idx ON sessions (user_id, created_at)`);

    await queryRunner.query(`
      CREATE TABLE api_keys (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        name text NOT NULL,
        prefix text NOT NULL,
        key_hash text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        last_used_at timestamptz,
        expires_at timestamptz,
        revoked_at timestamptz
      )`);
    await queryRunner.query(`CREATE UNIQUE INDEX api_keys_key_hash_key ON api_keys (key_hash)`);
    await queryRunner.query(`CREATE INDEX api_keys_user_id_created_at_idx ON api_keys (user_id, created_at)`);

    await queryRunner.query(`
      CREATE TABLE subscriptions (
        user_id uuid PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
        provider text,
        plan_code text,
        status text NOT NULL DEFAULT 'none' CONSTRAINT subscriptions_status_check
          CHECK (status IN ('none', 'incomplete', 'incomplete_expired', 'trialing', 'active', 'past_due', 'canceled', 'unpaid', 'paused')),
        is_beta_lifetime boolean NOT NULL DEFAULT false,
        current_period_end timestamptz,
        cancel_at_period_end boolean NOT NULL DEFAULT false,
        provider_customer_id text,
        provider_subscription_id text,
        provider_state_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE UNIQUE INDEX subscriptions_provider_customer_id_key ON subscriptions (provider_customer_id)`);
    await queryRunner.query(`CREATE UNIQUE INDEX subscriptions_provider_subscription_id_key ON subscriptions (provider_subscription_id)`);

    await queryRunner.query(`
      CREATE TABLE rate_limit_counters (
        key text PRIMARY KEY,
        hits integer NOT NULL,
        window_ends_at timestamptz NOT NULL
      )`);
    await queryRunner.query(`CREATE INDEX rate_limit_counters_window_ends_at_idx ON rate_limit_counters (window_ends_at)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE rate_limit_counters`);
    await queryRunner.query(`DROP TABLE subscriptions`);
    await queryRunner.query(`DROP TABLE api_keys`);
    await queryRunner.query(`DROP TABLE sessions`);
    await queryRunner.query(`DROP TABLE users`);
  }
}
