import { Module } from '@nestjs/common';
import { MailModule } from '#libs/mail';
import { AccountsCoreModule } from '../accounts-core.module.js';
import { SecurityActivityModule } from '../security-activity/security-activity.module.js';
import { SessionsModule } from '../sessions/sessions.module.js';
import { EmailTokensRepository } from './email-tokens.repository.js';
import { EmailVerificationController } from './email-verification.controller.js';
import { EmailVerificationService } from './email-verification.service.js';
import { SignInNoticesService } from './sign-in-notices.service.js';

/** E-mail verification, change of e-mail and the new-device sign-in notice. AuthModule imports it (signup mails the first code, login the notice). */
@Module({
  imports: [AccountsCoreModule, MailModule, SessionsModule, SecurityActivityModule],
  controllers: [EmailVerificationController],
  providers: [EmailTokensRepository, EmailVerificationService, SignInNoticesService],
  exports: [EmailVerificationService, SignInNoticesService],
})
export class EmailVerificationModule {}
