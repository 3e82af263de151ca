import { Module } from '@nestjs/common';
import { ObservabilityModule } from '#libs/common';
import { AccountsCoreModule } from '#libs/identity';
import { SecurityActivityModule } from '#libs/identity';
import { AppMetrics } from '#libs/common';
import { AdminKeyGuard } from './admin-key.guard.js';
import { BetaAccessController } from './beta-access.controller.js';
import { BetaAccessService } from './beta-access.service.js';
import { BillingCleanupService } from './billing-cleanup.service.js';
import { BILLING_CONFIG, type BillingConfig } from './billing.config.js';
import { BillingWebhookController } from './billing-webhook.controller.js';
import { BillingWebhookService } from './billing-webhook.service.js';
import { BillingController } from './billing.controller.js';
import { BillingRepository } from './billing.repository.js';
import { BillingService } from './billing.service.js';
import { createStripeClient, STRIPE_CLIENT } from './stripe.client.js';

/** Subscription status, Stripe checkout/portal/cancel/reactivate, Stripe webhooks, admin beta access (the 'admin-key' scheme's guard), the Stripe clean-up of deleted accounts. */
@Module({
  imports: [ObservabilityModule, AccountsCoreModule, SecurityActivityModule],
  controllers: [BillingController, BillingWebhookController, BetaAccessController],
  providers: [
    { provide: STRIPE_CLIENT, inject: [BILLING_CONFIG, AppMetrics], useFactory: (config: BillingConfig, metrics: AppMetrics) => createStripeClient(config.stripe, metrics) },
    BillingRepository,
    BillingService,
    BillingWebhookService,
    BetaAccessService,
    BillingCleanupService,
    AdminKeyGuard,
  ],
  exports: [BillingService, BillingCleanupService],
})
export class BillingModule {}
