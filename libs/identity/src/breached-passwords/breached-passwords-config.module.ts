import { DynamicModule, Global, Module } from '@nestjs/common';
import { BREACHED_PASSWORDS_CONFIG, type BreachedPasswordsConfig } from './breached-passwords.config.js';

/**
 * Provides the validated breached-password settings (loadBreachedPasswordsConfig) under BREACHED_PASSWORDS_CONFIG,
 * taken as an object like BillingConfigModule's. Global, so BreachedPasswordsModule stays one static module that
 * the identity features using it import.
 */
@Global()
@Module({})
export class BreachedPasswordsConfigModule {
  static forRoot(config: BreachedPasswordsConfig): DynamicModule {
    return { module: BreachedPasswordsConfigModule, providers: [{ provide: BREACHED_PASSWORDS_CONFIG, useValue: config }], exports: [BREACHED_PASSWORDS_CONFIG] };
  }
}
