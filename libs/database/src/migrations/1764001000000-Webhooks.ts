import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Webhooks (libs/webhooks): the endpoints an owner registers and one delivery row per (event, endpoint), which is
 * also the durable queue the dispatchers claim with FOR UPDATE SKIP LOCKED. An owner is named by a kind the app
 * chooses (`account` for todo-api) and an id; its rows are removed by the app with the owner (no foreign key: the
 * owner may be a user or a site). Deliveries are written in the transaction of the change they report: an AFTER
 * INSERT trigger on an app's event log (`webhook_enqueue(owner kind, owner column)`) fans the event out to the
 * owner's enabled endpoints whose filter matches (no extra round trip on the write path). The event id is
 * `evt_` followed by the log row's id. Deliveries carry their own copy of the payload (the log is kept 24 h, a
 * delivery is retried for about 3 days) and are swept 30 days after their creation.
 */
export class Webhooks1764001000000 implements MigrationInterface {
  name = 'Webhooks1764001000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE webhook_endpoints (
        id uuid NOT NULL DEFAULT gen_random_uuid() CONSTRAINT webhook_endpoints_pkey PRIMARY KEY,
        owner_kind text NOT NULL,
        owner_id uuid NOT NULL,
        url text NOT NULL,
        event_types text[] NOT NULL DEFAULT '{}',
        description text NOT NULL DEFAULT '',
        enabled boolean NOT NULL DEFAULT true,
        disabled_reason text,
        secret text NOT NULL,
        previous_secret text,
        previous_secret_expires_at timestamptz,
        failure_streak integer NOT NULL DEFAULT 0,
        failing_since timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE INDEX webhook_endpoints_owner_idx ON webhook_endpoints (owner_kind, owner_id, created_at)`);
    await queryRunner.query(`
      CREATE TABLE webhook_deliveries (
        id uuid NOT NULL DEFAULT gen_random_uuid() CONSTRAINT webhook_deliveries_pkey PRIMARY KEY,
        endpoint_id uuid NOT NULL CONSTRAINT webhook_deliveries_endpoint_id_fkey REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
        owner_kind text NOT NULL,
        owner_id uuid NOT NULL,
        event_id text NOT NULL,
        event_type text NOT NULL,
        occurred_at timestamptz NOT NULL,
        payload jsonb NOT NULL,
        status text NOT NULL DEFAULT 'pending' CONSTRAINT webhook_deliveries_status_check CHECK (status IN ('pending', 'delivered', 'failed')),
        attempts integer NOT NULL DEFAULT 0,
        last_response_code integer,
        last_error text,
        next_attempt_at timestamptz NOT NULL DEFAULT now(),
        created_at timestamptz NOT NULL DEFAULT now(),
        completed_at timestamptz
      )`);
    await queryRunner.query(`CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (owner_kind, next_attempt_at) WHERE status = 'pending'`);
    await queryRunner.query(`CREATE INDEX webhook_deliveries_endpoint_idx ON webhook_deliveries (endpoint_id, created_at DESC, id DESC)`);
    await queryRunner.query(`CREATE INDEX webhook_deliveries_created_at_idx ON webhook_deliveries (created_at)`);
    await queryRunner.query(`
      CREATE FUNCTION webhook_enqueue() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        event jsonb := to_jsonb(NEW);
      BEGIN
        INSERT INTO webhook_deliveries (endpoint_id, owner_kind, owner_id, event_id, event_type, occurred_at, payload)
        SELECT endpoint.id, endpoint.owner_kind, endpoint.owner_id, 'evt_' || (event->>'id'), event->>'type', (event->>'created_at')::timestamptz, event->'payload'
        FROM webhook_endpoints endpoint
        WHERE endpoint.owner_kind = TG_ARGV[0] AND endpoint.owner_id = (event->>TG_ARGV[1])::uuid AND endpoint.enabled
          AND (cardinality(endpoint.event_types) = 0 OR (event->>'type') = ANY (endpoint.event_types));
        RETURN NULL;
      END
      $$`);
    await queryRunner.query(`CREATE TRIGGER todo_events_webhook_enqueue AFTER INSERT ON todo_events FOR EACH ROW EXECUTE FUNCTION webhook_enqueue('account', 'user_id')`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER todo_events_webhook_enqueue ON todo_events`);
    await queryRunner.query(`DROP FUNCTION webhook_enqueue()`);
    await queryRunner.query(`DROP TABLE webhook_deliveries`);
    await queryRunner.query(`DROP TABLE webhook_endpoints`);
  }
}
