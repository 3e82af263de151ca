import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Billing bookkeeping: the Stripe webhook events already applied (each event id once), and
 * the audit log of administrator beta-access grants and revocations.
 */
export class CreateBillingRecords1763720000000 implements MigrationInterface {
  name = 'CreateBillingRecords1763720000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE billing_webhook_events (
        event_id text PRIMARY KEY,
        type text NOT NULL,
        processed_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE INDEX billing_webhook_events_processed_at_idx ON billing_webhook_events (processed_at)`);

    await queryRunner.query(`
      CREATE TABLE beta_access_audit (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        action text NOT NULL CONSTRAINT beta_access_audit_action_check CHECK (action IN ('grant', 'revoke')),
        changed boolean NOT NULL,
        request_id text,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE INDEX beta_access_audit_user_id_created_at_idx ON beta_access_audit (user_id, created_at)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE beta_access_audit`);
    await queryRunner.query(`DROP TABLE billing_webhook_events`);
  }
}
