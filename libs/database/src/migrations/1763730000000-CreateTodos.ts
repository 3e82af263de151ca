import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Todos, the Idempotency-Key replay store of todo creation, and the todo event log that
 * feeds the realtime stream (and its Last-Event-ID resume).
 */
export class CreateTodos1763730000000 implements MigrationInterface {
  name = 'CreateTodos1763730000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE todos (
        id serial CONSTRAINT todos_pkey PRIMARY KEY,
        user_id uuid NOT NULL CONSTRAINT todos_user_id_fkey REFERENCES users (id) ON DELETE CASCADE,
        text text NOT NULL CONSTRAINT todos_text_length_check CHECK (char_length(text) BETWEEN 1 AND 5000),
        priority smallint NOT NULL CONSTRAINT todos_priority_check CHECK (priority BETWEEN 1 AND 4),
        category text NOT NULL CONSTRAINT todos_category_length_check CHECK (char_length(category) BETWEEN 1 AND 100),
        estimated_duration_minutes integer CONSTRAINT todos_estimated_duration_check CHECK (estimated_duration_minutes >= 0),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    // Owner first: a list costs the same however many todos other accounts have.
    await queryRunner.query(`CREATE INDEX todos_user_id_created_at_id_idx ON todos (user_id, created_at, id)`);
    await queryRunner.query(`CREATE INDEX todos_user_id_priority_created_at_id_idx ON todos (user_id, priority, created_at, id)`);
    await queryRunner.query(`CREATE INDEX todos_user_id_category_created_at_id_idx ON todos (user_id, category, created_at, id)`);

    await queryRunner.query(`
      CREATE TABLE todo_idempotency_keys (
        api_key_id uuid NOT NULL CONSTRAINT todo_idempotency_keys_api_key_id_fkey REFERENCES api_keys (id) ON DELETE CASCADE,
        idempotency_key text NOT NULL,
        user_id uuid NOT NULL CONSTRAINT todo_idempotency_keys_user_id_fkey REFERENCES users (id) ON DELETE CASCADE,
        request_hash text NOT NULL,
        status_code integer,
        response jsonb,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT todo_idempotency_keys_pkey PRIMARY KEY (api_key_id, idempotency_key)
      )`);
    await queryRunner.query(`CREATE INDEX todo_idempotency_keys_created_at_idx ON todo_idempotency_keys (created_at)`);
    await queryRunner.query(`CREATE INDEX todo_idempotency_keys_user_id_idx ON todo_idempotency_keys (user_id)`);

    await queryRunner.query(`
      CREATE TABLE todo_events (
        id bigserial CONSTRAINT todo_events_pkey PRIMARY KEY,
        user_id uuid NOT NULL CONSTRAINT todo_events_user_id_fkey REFERENCES users (id) ON DELETE CASCADE,
        type text NOT NULL CONSTRAINT todo_events_type_check CHECK (type IN ('todo.created', 'todo.updated', 'todo.deleted')),
        payload jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE INDEX todo_events_user_id_id_idx ON todo_events (user_id, id)`);
    await queryRunner.query(`CREATE INDEX todo_events_created_at_idx ON todo_events (created_at)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE todo_events`);
    await queryRunner.query(`DROP TABLE todo_idempotency_keys`);
    await queryRunner.query(`DROP TABLE todos`);
  }
}
