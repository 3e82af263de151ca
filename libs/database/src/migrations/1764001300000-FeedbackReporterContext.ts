import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What the widget tells about the reporter's browser (browser, OS, viewport, language, referrer;
 * never cookies or page content), as one JSON object. Null for rows from before it and for
 * submissions that send none (API clients, older widget copies in caches).
 */
export class FeedbackReporterContext1764001300000 implements MigrationInterface {
  name = 'FeedbackReporterContext1764001300000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE feedback ADD COLUMN reporter_context jsonb NULL`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE feedback DROP COLUMN reporter_context`);
  }
}
