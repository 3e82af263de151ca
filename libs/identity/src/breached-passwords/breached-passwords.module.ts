import { DynamicModule, Global, Module } from '@nestjs/common';
import { ObservabilityModule } from '#libs/common';
import { BREACHED_PASSWORDS_CONFIG, type BreachedPasswordsConfig } from './breached-passwords.config.js';
import { BreachedPasswordsService } from './breached-passwords.service.js';

/**
 * The breached-password check, with its validated settings (loadBreachedPasswordsConfig) taken as an object like
 * BillingConfigModule's. Global, so the identity features (sign-up, reset, change) inject the service without
 * importing this module.
 */
@Global()
@Module({})
export class BreachedPasswordsModule {
  static forRoot(config: BreachedPasswordsConfig): DynamicModule {
    return {
      module: BreachedPasswordsModule,
      imports: [ObservabilityModule],
      providers: [{ provide: BREACHED_PASSWORDS_CONFIG, useValue: config }, BreachedPasswordsService],
      exports: [BreachedPasswordsService],
    };
  }
}
