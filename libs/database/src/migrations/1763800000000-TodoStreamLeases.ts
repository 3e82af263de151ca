import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * One row per open realtime todo stream, so the per-account cap on concurrent streams holds
 * across replicas. A lease lives while its replica renews it; a replica that dies without
 * releasing its streams' leases leaves rows that stop counting once `expires_at` passes.
 */
export class TodoStreamLeases1763800000000 implements MigrationInterface {
  name = 'TodoStreamLeases1763800000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE todo_stream_leases (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        user_id uuid NOT NULL CONSTRAINT todo_stream_leases_user_id_fkey REFERENCES users (id) ON DELETE CASCADE,
        opened_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL
      )`);
    await queryRunner.query(`CREATE INDEX todo_stream_leases_user_id_expires_at_idx ON todo_stream_leases (user_id, expires_at)`);
    await queryRunner.query(`CREATE INDEX todo_stream_leases_expires_at_idx ON todo_stream_leases (expires_at)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE todo_stream_leases`);
  }
}
