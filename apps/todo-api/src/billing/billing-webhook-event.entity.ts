import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A Stripe webhook event already applied; its id makes redelivery a no-op. */
@Entity('billing_webhook_events')
export class BillingWebhookEventEntity {
  @PrimaryColumn({ name: 'event_id', type: 'text' })
  eventId: string;

  @Column({ type: 'text' })
  type: string;

  @Column({ name: 'processed_at', type: 'timestamptz', default: () => 'now()' })
  processedAt: Date;
}
