import { Column, Entity, PrimaryColumn } from 'typeorm';

export type SubscriptionStatus =
  | 'none'
  | 'incomplete'
  | 'incomplete_expired'
  | 'trialing'
  | 'active'
  | 'past_due'
  | 'canceled'
  | 'unpaid'
  | 'paused';

/** A user's API access: a paid subscription at the payment provider and/or lifetime beta. */
@Entity('subscriptions')
export class SubscriptionEntity {
  @PrimaryColumn({ name: 'user_id', type: 'uuid' })
  userId: string;

  @Column({ type: 'text', nullable: true })
  provider: string | null;

  @Column({ name: 'plan_code', type: 'text', nullable: true })
  planCode: string | null;

  @Column({ type: 'text', default: 'none' })
  status: SubscriptionStatus;

  @Column({ name: 'is_beta_lifetime', type: 'boolean', default: false })
  isBetaLifetime: boolean;

  @Column({ name: 'current_period_end', type: 'timestamptz', nullable: true })
  currentPeriodEnd: Date | null;

  @Column({ name: 'cancel_at_period_end', type: 'boolean', default: false })
  cancelAtPeriodEnd: boolean;

  @Column({ name: 'provider_customer_id', type: 'text', nullable: true })
  providerCustomerId: string | null;

  @Column({ name: 'provider_subscription_id', type: 'text', nullable: true })
  providerSubscriptionId: string | null;

  /** Time of the provider state last applied: older webhook events never overwrite newer state. */
  @Column({ name: 'provider_state_at', type: 'timestamptz', nullable: true })
  providerStateAt: Date | null;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt: Date;

  @Column({ name: 'updated_at', type: 'timestamptz', default: () => 'now()' })
  updatedAt: Date;
}
