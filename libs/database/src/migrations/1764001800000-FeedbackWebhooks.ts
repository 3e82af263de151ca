import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Webhooks for feedback-export (owner kind `site`, owner id: the site id), on the engine of Webhooks1764001000000.
 * `feedback_events` is the service's event log (its outbox): each change it records writes its row in the change's
 * own statement (see FeedbackRepository, QuestionsRepository), and the generic `webhook_enqueue('site', 'site_id')`
 * trigger fans the row out to the site's matching enabled endpoints in the same transaction. The event id on the
 * wire is `evt_` and the row's id; rows are swept after 24 h (deliveries carry their own copy of the payload).
 * A site's endpoints go with the site (no foreign key: the owner of an endpoint is a kind and an id): an AFTER
 * DELETE trigger on `sites` removes them, so they also go when an account's deletion removes its sites by cascade.
 */
export class FeedbackWebhooks1764001800000 implements MigrationInterface {
  name = 'FeedbackWebhooks1764001800000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE feedback_events (
        id bigint GENERATED ALWAYS AS IDENTITY CONSTRAINT feedback_events_pkey PRIMARY KEY,
        site_id uuid NOT NULL CONSTRAINT feedback_events_site_id_fkey REFERENCES sites (id) ON DELETE CASCADE,
        type text NOT NULL,
        payload jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE INDEX feedback_events_site_id_idx ON feedback_events (site_id)`);
    await queryRunner.query(`CREATE INDEX feedback_events_created_at_idx ON feedback_events (created_at)`);
    await queryRunner.query(`CREATE TRIGGER feedback_events_webhook_enqueue AFTER INSERT ON feedback_events FOR EACH ROW EXECUTE FUNCTION webhook_enqueue('site', 'site_id')`);
    await queryRunner.query(`
      CREATE FUNCTION site_webhooks_delete() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        DELETE FROM webhook_endpoints WHERE owner_kind = 'site' AND owner_id = OLD.id;
        RETURN NULL;
      END
      $$`);
    await queryRunner.query(`CREATE TRIGGER sites_webhooks_delete AFTER DELETE ON sites FOR EACH ROW EXECUTE FUNCTION site_webhooks_delete()`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER sites_webhooks_delete ON sites`);
    await queryRunner.query(`DROP FUNCTION site_webhooks_delete()`);
    await queryRunner.query(`DROP TABLE feedback_events`);
  }
}
