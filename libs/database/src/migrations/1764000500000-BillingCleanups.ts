import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What account deletion leaves to do at Stripe: expire the customer's open Checkout sessions,
 * cancel its subscription, delete the customer. A row is written in the deletion's transaction
 * (so it survives a Stripe outage or a crash) and deleted once Stripe has done all of it; it
 * holds only Stripe's ids, nothing of the deleted account. `next_attempt_at` is both the retry
 * time (backing off) and the lease of the replica working on it.
 */
export class BillingCleanups1764000500000 implements MigrationInterface {
  name = 'BillingCleanups1764000500000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE billing_cleanups (
        provider_customer_id text NOT NULL CONSTRAINT billing_cleanups_pkey PRIMARY KEY,
        provider_subscription_id text,
        attempts integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz NOT NULL DEFAULT now(),
        last_error text,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE INDEX billing_cleanups_next_attempt_at_idx ON billing_cleanups (next_attempt_at)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE billing_cleanups`);
  }
}
