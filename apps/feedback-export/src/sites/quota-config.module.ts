import { DynamicModule, Global, Module } from '@nestjs/common';
import { QUOTA_CONFIG, type QuotaConfig } from './quota.config.js';

/**
 * Provides feedback-export's validated quotas (loadQuotaConfig) under QUOTA_CONFIG, taken as an
 * object (not read from process.env here) so tests run differently configured instances in one
 * process. Global: the sites and questions features both enforce them.
 */
@Global()
@Module({})
export class QuotaConfigModule {
  static forRoot(config: QuotaConfig): DynamicModule {
    return { module: QuotaConfigModule, providers: [{ provide: QUOTA_CONFIG, useValue: config }], exports: [QUOTA_CONFIG] };
  }
}
