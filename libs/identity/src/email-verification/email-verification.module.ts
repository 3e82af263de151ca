import { Module } from '@nestjs/common';
import { MailModule } from '#libs/mail';
import { AccountsCoreModule } from '../accounts-core.module.js';
import { SecurityActivityModule } from '../security-activity/security-activity.module.js';
import { SessionsModule } from '../sessions/sessions.module.js';
import { EmailTokensRepository } from './email-tokens.repository.js';
import { EmailVerificationController } from './email-verification.controller.js';
import { EmailVerificationService } from './email-verification.service.js';

/** E-mail verification and change of e-mail. AuthModule imports it (signup mails the first code). */
@Module({
  imports: [AccountsCoreModule, MailModule, SessionsModule, SecurityActivityModule],
  controllers: [EmailVerificationController],
  providers: [EmailTokensRepository, EmailVerificationService],
  exports: [EmailVerificationService],
})
export class EmailVerificationModule {}
