import { Module } from '@nestjs/common';
import { AccountsCoreModule } from '../accounts-core.module.js';
import { SecondFactorModule } from '../second-factor/second-factor.module.js';
import { SecurityActivityModule } from '../security-activity/security-activity.module.js';
import { PasskeyAssertionsModule } from './passkey-assertions.module.js';
import { PasskeysController } from './passkeys.controller.js';
import { PasskeysRepository } from './passkeys.repository.js';
import { PasskeysService } from './passkeys.service.js';

/** Passkeys (WebAuthn): the account's own routes here, the assertion judging from PasskeyAssertionsModule (shared with SecondFactorModule, whose fresh factor check takes a passkey); AuthModule imports it for the passkey sign-ins (it imports no sign-in code). */
@Module({
  imports: [AccountsCoreModule, SecurityActivityModule, SecondFactorModule, PasskeyAssertionsModule],
  controllers: [PasskeysController],
  providers: [PasskeysRepository, PasskeysService],
  exports: [PasskeysService],
})
export class PasskeysModule {}
