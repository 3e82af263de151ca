import { Module } from '@nestjs/common';
import { ObservabilityModule } from '#libs/common';
import { BreachedPasswordsService } from './breached-passwords.service.js';

/**
 * The breached-password check. Its settings come from BreachedPasswordsConfigModule.forRoot (registered by the
 * app); the identity features that check passwords (sign-up, reset, change) import this module.
 */
@Module({
  imports: [ObservabilityModule],
  providers: [BreachedPasswordsService],
  exports: [BreachedPasswordsService],
})
export class BreachedPasswordsModule {}
