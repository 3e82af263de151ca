import { ApiProperty } from '@nestjs/swagger';
import type { SubscriptionRow } from '../../api-access/api-access.rows.js';
import { hasApiAccess } from '../../api-access/subscription-access.js';
import { publishedStatusOf } from '../subscription-state.js';

const SUBSCRIPTION_STATUSES = ['none', 'incomplete', 'trialing', 'active', 'past_due', 'canceled', 'unpaid'] as const;

export class SubscriptionDto {
  @ApiProperty({ type: String, nullable: true, example: 'stripe', description: 'Payment provider of the paid subscription; null without one' })
  provider: string | null;

  @ApiProperty({ type: String, nullable: true, example: 'api_access_monthly', description: 'Plan of the paid subscription; null without one' })
  planCode: string | null;

  @ApiProperty({ enum: SUBSCRIPTION_STATUSES, example: 'active', description: 'Status of the paid subscription (`none` when there never was one)' })
  status: string;

  @ApiProperty({ description: 'API access is on: a paid active/trialing subscription, or lifetime beta access' })
  isActive: boolean;

  @ApiProperty({ description: 'Lifetime beta access granted by an administrator' })
  isBetaLifetime: boolean;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'End of the paid period' })
  currentPeriodEnd: string | null;

  @ApiProperty({ description: 'The paid subscription ends at currentPeriodEnd instead of renewing' })
  cancelAtPeriodEnd: boolean;

  @ApiProperty({ type: String, nullable: true, example: 'cus_N2k3...', description: 'Payment-provider customer identifier' })
  providerCustomerId: string | null;
}

export function toSubscriptionDto(row: SubscriptionRow | null): SubscriptionDto {
  return {
    provider: row?.provider ?? null,
    planCode: row?.planCode ?? null,
    status: row ? publishedStatusOf(row.status) : 'none',
    isActive: hasApiAccess(row),
    isBetaLifetime: row?.isBetaLifetime ?? false,
    currentPeriodEnd: row?.currentPeriodEnd ? row.currentPeriodEnd.toISOString() : null,
    cancelAtPeriodEnd: row?.cancelAtPeriodEnd ?? false,
    providerCustomerId: row?.providerCustomerId ?? null,
  };
}

export class SubscriptionStatusDto {
  @ApiProperty({ example: 'api_access_monthly' })
  planCode: string;

  @ApiProperty({ example: 5 })
  monthlyPriceUsd: number;

  @ApiProperty({ description: 'Checkout is available (billing is configured on this server)' })
  checkoutEnabled: boolean;

  @ApiProperty({ type: SubscriptionDto })
  subscription: SubscriptionDto;
}

export class SubscriptionResultDto {
  @ApiProperty({ type: SubscriptionDto })
  subscription: SubscriptionDto;
}

export class CheckoutSessionDto {
  @ApiProperty({ format: 'uri', description: 'Send the user here to pay' })
  checkoutUrl: string;

  @ApiProperty({ example: 'cs_test_a1b2...' })
  sessionId: string;
}

export class PortalSessionDto {
  @ApiProperty({ format: 'uri', description: 'Send the user here to manage payment details and invoices' })
  portalUrl: string;

  @ApiProperty({ example: 'bps_1N...' })
  sessionId: string;
}

export class WebhookReceivedDto {
  @ApiProperty({ enum: [true] })
  received: true;

  @ApiProperty({ description: 'The event id had already been processed; nothing changed' })
  duplicate: boolean;
}
