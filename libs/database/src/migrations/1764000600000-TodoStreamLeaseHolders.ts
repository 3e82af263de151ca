import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The database session that holds each realtime stream's lease: a replica's LISTEN connection
 * (on the embedded database, its one session), named by backend pid and the session's start. A
 * lease whose session is no longer in pg_stat_activity stops counting at once, so a replica
 * killed without giving its leases back frees its accounts' slots as soon as its connection
 * closes; `expires_at` stays as the backstop (a host that vanished without closing it).
 */
export class TodoStreamLeaseHolders1764000600000 implements MigrationInterface {
  name = 'TodoStreamLeaseHolders1764000600000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE todo_stream_leases ADD COLUMN holder_pid integer, ADD COLUMN holder_started timestamptz`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE todo_stream_leases DROP COLUMN holder_started, DROP COLUMN holder_pid`);
  }
}
