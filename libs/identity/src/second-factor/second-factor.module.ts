import { Module } from '@nestjs/common';
import { AccountsCoreModule } from '../accounts-core.module.js';
import { PasskeyAssertions } from '../passkeys/passkey-assertions.service.js';
import { PasskeysRepository } from '../passkeys/passkeys.repository.js';
import { SecurityActivityModule } from '../security-activity/security-activity.module.js';
import { SecondFactorController } from './second-factor.controller.js';
import { SecondFactorRateLimiter } from './second-factor-rate-limiter.service.js';
import { SecondFactorRepository } from './second-factor.repository.js';
import { SecondFactorService } from './second-factor.service.js';

/** The TOTP second factor and recovery codes; AuthModule imports it for the sign-in challenge (it imports no sign-in code). */
@Module({
  imports: [AccountsCoreModule, SecurityActivityModule],
  controllers: [SecondFactorController],
  providers: [SecondFactorRepository, SecondFactorService, SecondFactorRateLimiter, PasskeysRepository, PasskeyAssertions],
  exports: [SecondFactorService, SecondFactorRateLimiter, PasskeysRepository, PasskeyAssertions],
})
export class SecondFactorModule {}
