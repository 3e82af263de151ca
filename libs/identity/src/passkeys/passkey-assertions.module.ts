import { Module } from '@nestjs/common';
import { PasskeyAssertions } from './passkey-assertions.service.js';
import { PasskeysRepository } from './passkeys.repository.js';

/**
 * Judging passkey assertions, on its own so both users import it and neither imports the other: the passkey sign-ins
 * (PasskeysModule) and the fresh factor check of a signed-in account (SecondFactorModule). It offers the judging
 * service, never the repository behind it.
 */
@Module({
  providers: [PasskeysRepository, PasskeyAssertions],
  exports: [PasskeyAssertions],
})
export class PasskeyAssertionsModule {}
