import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The feedback commit clock per owner instead of one row for the whole platform.
 *
 * Every poller reads within one owner (a site belongs to one owner; the portfolio spans one
 * owner's sites), so commit order only has to hold among one owner's writers. One row per owner
 * keeps exactly-once polling and lets writers of different owners commit in parallel.
 * Each owner's clock starts at their newest feedback, so positions keep increasing.
 */
export class FeedbackClockPerOwner1763790000000 implements MigrationInterface {
  name = 'FeedbackClockPerOwner1763790000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE feedback_owner_clock (
        owner_id uuid PRIMARY KEY CONSTRAINT feedback_owner_clock_owner_id_fkey REFERENCES users (id) ON DELETE CASCADE,
        last_at timestamptz NOT NULL
      )`);
    await queryRunner.query(`
      INSERT INTO feedback_owner_clock (owner_id, last_at)
      SELECT owner_id, max(created_at) FROM feedback GROUP BY owner_id`);
    await queryRunner.query(`DROP TABLE feedback_commit_clock`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE feedback_commit_clock (
        id smallint PRIMARY KEY CONSTRAINT feedback_commit_clock_single_row CHECK (id = 1),
        last_at timestamptz NOT NULL
      )`);
    await queryRunner.query(`INSERT INTO feedback_commit_clock (id, last_at) SELECT 1, coalesce(max(last_at), 'epoch') FROM feedback_owner_clock`);
    await queryRunner.query(`DROP TABLE feedback_owner_clock`);
  }
}
