import { DynamicModule, Global, Module } from '@nestjs/common';
import { BILLING_CONFIG, type BillingConfig } from './billing.config.js';

/**
 * Provides todo-api's validated billing settings (loadBillingConfig) under BILLING_CONFIG, as
 * AppConfigModule does the shared ones: taken as an object, not read from process.env here, so tests
 * run differently configured instances in one process. Global, so BillingModule stays one static module
 * (AccountModule imports it too).
 */
@Global()
@Module({})
export class BillingConfigModule {
  static forRoot(config: BillingConfig): DynamicModule {
    return { module: BillingConfigModule, providers: [{ provide: BILLING_CONFIG, useValue: config }], exports: [BILLING_CONFIG] };
  }
}
