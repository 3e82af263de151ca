import { Module } from '@nestjs/common';
import { AccountsCoreModule } from '../accounts-core.module.js';
import { PasskeyAssertionsModule } from '../passkeys/passkey-assertions.module.js';
import { SecurityActivityModule } from '../security-activity/security-activity.module.js';
import { SecondFactorController } from './second-factor.controller.js';
import { SecondFactorRateLimiter } from './second-factor-rate-limiter.service.js';
import { SecondFactorRepository } from './second-factor.repository.js';
import { SecondFactorService } from './second-factor.service.js';

/** The TOTP second factor and recovery codes; AuthModule imports it for the sign-in challenge (it imports no sign-in code). */
@Module({
  imports: [AccountsCoreModule, SecurityActivityModule, PasskeyAssertionsModule],
  controllers: [SecondFactorController],
  providers: [SecondFactorRepository, SecondFactorService, SecondFactorRateLimiter],
  exports: [SecondFactorService, SecondFactorRateLimiter],
})
export class SecondFactorModule {}
