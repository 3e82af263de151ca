import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Question batches of a site, their questions and the recipient's answers.
 * Batches cascade from their site (and user); questions and answers from their batch.
 * The share token is stored twice: its SHA-256 (the lookup key of the public page) and
 * AES-256-GCM ciphertext (so the link endpoint can hand the link out again). Never the plain token.
 */
export class CreateQuestionBatches1763750000000 implements MigrationInterface {
  name = 'CreateQuestionBatches1763750000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE question_batches (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        site_id uuid NOT NULL,
        owner_id uuid NOT NULL CONSTRAINT question_batches_owner_id_fkey REFERENCES users (id) ON DELETE CASCADE,
        title text NOT NULL CONSTRAINT question_batches_title_check CHECK (char_length(title) BETWEEN 1 AND 200),
        intro_html text NOT NULL DEFAULT '' CONSTRAINT question_batches_intro_html_check CHECK (char_length(intro_html) <= 20000),
        notify_email text NOT NULL CONSTRAINT question_batches_notify_email_check CHECK (char_length(notify_email) BETWEEN 3 AND 254),
        status text NOT NULL DEFAULT 'draft' CONSTRAINT question_batches_status_check CHECK (status IN ('draft', 'sent', 'opened', 'answered')),
        share_token_hash text NOT NULL,
        share_token_sealed text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        sent_at timestamptz,
        opened_at timestamptz,
        answered_at timestamptz,
        notified_at timestamptz,
        CONSTRAINT question_batches_site_fkey FOREIGN KEY (site_id, owner_id) REFERENCES sites (id, owner_id) ON DELETE CASCADE
      )`);
    await queryRunner.query(`CREATE UNIQUE INDEX question_batches_share_token_hash_key ON question_batches (share_token_hash)`);
    await queryRunner.query(`CREATE INDEX question_batches_site_created_idx ON question_batches (site_id, created_at, id)`);
    await queryRunner.query(`CREATE INDEX question_batches_owner_id_idx ON question_batches (owner_id)`);

    await queryRunner.query(`
      CREATE TABLE batch_questions (
        batch_id uuid NOT NULL CONSTRAINT batch_questions_batch_id_fkey REFERENCES question_batches (id) ON DELETE CASCADE,
        n integer NOT NULL CONSTRAINT batch_questions_n_check CHECK (n BETWEEN 1 AND 1000000),
        title text NOT NULL CONSTRAINT batch_questions_title_check CHECK (char_length(title) BETWEEN 1 AND 200),
        html text NOT NULL CONSTRAINT batch_questions_html_check CHECK (char_length(html) <= 20000),
        CONSTRAINT batch_questions_pkey PRIMARY KEY (batch_id, n)
      )`);

    await queryRunner.query(`
      CREATE TABLE batch_answers (
        batch_id uuid NOT NULL,
        n integer NOT NULL,
        text text NOT NULL CONSTRAINT batch_answers_text_check CHECK (char_length(text) BETWEEN 1 AND 20000),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT batch_answers_pkey PRIMARY KEY (batch_id, n),
        CONSTRAINT batch_answers_question_fkey FOREIGN KEY (batch_id, n) REFERENCES batch_questions (batch_id, n) ON DELETE CASCADE
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE batch_answers`);
    await queryRunner.query(`DROP TABLE batch_questions`);
    await queryRunner.query(`DROP TABLE question_batches`);
  }
}
