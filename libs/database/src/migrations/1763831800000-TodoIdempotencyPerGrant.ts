import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Idempotency-Keys of create_todo are kept per caller: an API key, as before, or an OAuth grant
 * (one app, one account). `caller` names it ('key:<api key id>' or 'grant:<grant id>'); api_key_id
 * stays for an API key's rows, so deleting the key still deletes them. A grant's rows go with the
 * account or after the 24-hour window (the sweep), like the others.
 */
export class TodoIdempotencyPerGrant1763831800000 implements MigrationInterface {
  name = 'TodoIdempotencyPerGrant1763831800000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE todo_idempotency_keys ADD COLUMN caller text`);
    await queryRunner.query(`UPDATE todo_idempotency_keys SET caller = 'key:' || api_key_id`);
    await queryRunner.query(`ALTER TABLE todo_idempotency_keys ALTER COLUMN caller SET NOT NULL`);
    await queryRunner.query(`ALTER TABLE todo_idempotency_keys DROP CONSTRAINT todo_idempotency_keys_pkey`);
    await queryRunner.query(`ALTER TABLE todo_idempotency_keys ALTER COLUMN api_key_id DROP NOT NULL`);
    await queryRunner.query(`ALTER TABLE todo_idempotency_keys ADD CONSTRAINT todo_idempotency_keys_pkey PRIMARY KEY (caller, idempotency_key)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DELETE FROM todo_idempotency_keys WHERE api_key_id IS NULL`);
    await queryRunner.query(`ALTER TABLE todo_idempotency_keys DROP CONSTRAINT todo_idempotency_keys_pkey`);
    await queryRunner.query(`ALTER TABLE todo_idempotency_keys ALTER COLUMN api_key_id SET NOT NULL`);
    await queryRunner.query(`ALTER TABLE todo_idempotency_keys ADD CONSTRAINT todo_idempotency_keys_pkey PRIMARY KEY (api_key_id, idempotency_key)`);
    await queryRunner.query(`ALTER TABLE todo_idempotency_keys DROP COLUMN caller`);
  }
}
