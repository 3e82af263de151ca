import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The dispatchers' claim (WebhookDeliveriesRepository.claimDue) takes the oldest due deliveries in
 * `(next_attempt_at, created_at)` order, 50 at a time. The due index held only `next_attempt_at`, so PostgreSQL read
 * every due row, joined and sorted them all, then kept 50: each claim cost as much as the whole backlog (10 ms at
 * 10,000 due, a drain's claims together grew with the square of the backlog). With `created_at` in the index the
 * claim reads the due rows in order and stops after its batch. It replaces the old index, which it covers (every
 * query that used it reads a prefix of this one), so a delivery still updates four indexes.
 */
export class WebhookDueOrder1764001900000 implements MigrationInterface {
  name = 'WebhookDueOrder1764001900000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX webhook_deliveries_due_idx`);
    await queryRunner.query(`CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (owner_kind, next_attempt_at, created_at) WHERE status = 'pending'`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX webhook_deliveries_due_idx`);
    await queryRunner.query(`CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (owner_kind, next_attempt_at) WHERE status = 'pending'`);
  }
}
