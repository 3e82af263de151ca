import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * One-click unsubscribes from question-batch notifications (RFC 8058), per site and recipient.
 * The recipient is kept only as the digest of its canonical address (canonicalEmailDigest), as the
 * mail budgets count it; the row goes with its site (and so with the account).
 */
export class QuestionMailUnsubscribes1764000200000 implements MigrationInterface {
  name = 'QuestionMailUnsubscribes1764000200000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE question_mail_unsubscribes (
        site_id uuid NOT NULL CONSTRAINT question_mail_unsubscribes_site_id_fkey REFERENCES sites (id) ON DELETE CASCADE,
        recipient_digest text NOT NULL CONSTRAINT question_mail_unsubscribes_recipient_digest_check CHECK (recipient_digest ~ '^[0-9a-f]{32}$'),
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT question_mail_unsubscribes_pkey PRIMARY KEY (site_id, recipient_digest)
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE question_mail_unsubscribes`);
  }
}
