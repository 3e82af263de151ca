import { Module } from '@nestjs/common';
import { AccountsCoreModule } from '../accounts-core.module.js';
import { SecondFactorModule } from '../second-factor/second-factor.module.js';
import { SecurityActivityModule } from '../security-activity/security-activity.module.js';
import { PasskeysController } from './passkeys.controller.js';
import { PasskeysService } from './passkeys.service.js';

/** Passkeys (WebAuthn): the account's own routes here (their repository and assertion judging come from SecondFactorModule, whose fresh factor check takes a passkey); AuthModule imports it for the passkey sign-ins (it imports no sign-in code). */
@Module({
  imports: [AccountsCoreModule, SecurityActivityModule, SecondFactorModule],
  controllers: [PasskeysController],
  providers: [PasskeysService],
  exports: [PasskeysService],
})
export class PasskeysModule {}
