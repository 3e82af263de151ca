import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Question and intro HTML is sanitised once, when a batch is stored, and served as stored. The
 * column names the sanitising policy a batch's HTML went through (its intro and its questions');
 * rows written before it (0) are sanitised again on their next read and written back with the
 * current version, as are rows of an older version after a policy change.
 */
export class QuestionHtmlPolicyVersion1764000300000 implements MigrationInterface {
  name = 'QuestionHtmlPolicyVersion1764000300000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE question_batches ADD COLUMN html_policy_version integer NOT NULL DEFAULT 0`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE question_batches DROP COLUMN html_policy_version`);
  }
}
