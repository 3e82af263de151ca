import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Feedback service: sites, their hashed export tokens (sk_/wk_ per site, ok_ per account),
 * feedback rows, and the commit clock that makes cursor polling exactly-once.
 * Everything cascades from users, and feedback and tokens from sites.
 */
export class CreateSitesAndFeedback1763740000000 implements MigrationInterface {
  name = 'CreateSitesAndFeedback1763740000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE sites (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        owner_id uuid NOT NULL CONSTRAINT sites_owner_id_fkey REFERENCES users (id) ON DELETE CASCADE,
        name text NOT NULL CONSTRAINT sites_name_check CHECK (char_length(name) BETWEEN 1 AND 100),
        slug text NOT NULL CONSTRAINT sites_slug_check CHECK (slug ~ '^[a-z0-9]([a-z0-9-]{0,62}[a-z0-9])?$'),
        site_key text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT sites_id_owner_id_key UNIQUE (id, owner_id)
      )`);
    await queryRunner.query(`CREATE UNIQUE INDEX sites_owner_id_slug_key ON sites (owner_id, slug)`);
    await queryRunner.query(`CREATE UNIQUE INDEX sites_site_key_key ON sites (site_key)`);
    await queryRunner.query(`CREATE INDEX sites_owner_id_created_at_idx ON sites (owner_id, created_at, id)`);

    await queryRunner.query(`
      CREATE TABLE feedback_tokens (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        owner_id uuid NOT NULL CONSTRAINT feedback_tokens_owner_id_fkey REFERENCES users (id) ON DELETE CASCADE,
        site_id uuid,
        kind text NOT NULL CONSTRAINT feedback_tokens_kind_check CHECK (kind IN ('read', 'write', 'portfolio')),
        token_hash text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT feedback_tokens_site_fkey FOREIGN KEY (site_id, owner_id) REFERENCES sites (id, owner_id) ON DELETE CASCADE,
        CONSTRAINT feedback_tokens_scope_check CHECK ((kind = 'portfolio') = (site_id IS NULL))
      )`);
    await queryRunner.query(`CREATE UNIQUE INDEX feedback_tokens_token_hash_key ON feedback_tokens (token_hash)`);
    await queryRunner.query(`CREATE UNIQUE INDEX feedback_tokens_site_id_kind_key ON feedback_tokens (site_id, kind) WHERE site_id IS NOT NULL`);
    await queryRunner.query(`CREATE UNIQUE INDEX feedback_tokens_portfolio_owner_key ON feedback_tokens (owner_id) WHERE kind = 'portfolio'`);
    await queryRunner.query(`CREATE INDEX feedback_tokens_owner_id_idx ON feedback_tokens (owner_id)`);

    await queryRunner.query(`
      CREATE TABLE feedback (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        site_id uuid NOT NULL,
        owner_id uuid NOT NULL CONSTRAINT feedback_owner_id_fkey REFERENCES users (id) ON DELETE CASCADE,
        type text NOT NULL CONSTRAINT feedback_type_check CHECK (type IN ('feedback', 'feature_request', 'bug')),
        message text NOT NULL CONSTRAINT feedback_message_check CHECK (char_length(message) BETWEEN 1 AND 5000),
        rating smallint CONSTRAINT feedback_rating_check CHECK (rating BETWEEN 1 AND 5),
        page_url text NOT NULL CONSTRAINT feedback_page_url_check CHECK (char_length(page_url) BETWEEN 1 AND 2048),
        status text NOT NULL DEFAULT 'new' CONSTRAINT feedback_status_check CHECK (status IN ('new', 'triaged', 'resolved')),
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT feedback_site_fkey FOREIGN KEY (site_id, owner_id) REFERENCES sites (id, owner_id) ON DELETE CASCADE
      )`);
    // Keyset indexes matching the two export orders exactly.
    await queryRunner.query(`CREATE INDEX feedback_site_export_idx ON feedback (site_id, created_at, id)`);
    await queryRunner.query(`CREATE INDEX feedback_portfolio_export_idx ON feedback (owner_id, created_at, site_id, id)`);

    // One row: the last created_at handed out. See FeedbackRepository.insertMany for why.
    await queryRunner.query(`
      CREATE TABLE feedback_commit_clock (
        id smallint PRIMARY KEY CONSTRAINT feedback_commit_clock_single_row CHECK (id = 1),
        last_at timestamptz NOT NULL
      )`);
    await queryRunner.query(`INSERT INTO feedback_commit_clock (id, last_at) VALUES (1, 'epoch')`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE feedback_commit_clock`);
    await queryRunner.query(`DROP TABLE feedback`);
    await queryRunner.query(`DROP TABLE feedback_tokens`);
    await queryRunner.query(`DROP TABLE sites`);
  }
}
