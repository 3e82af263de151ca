import { Module } from '@nestjs/common';
import { AccountsCoreModule } from '../accounts-core.module.js';
import { BreachedPasswordsModule } from '../breached-passwords/breached-passwords.module.js';
import { SecurityActivityModule } from '../security-activity/security-activity.module.js';
import { PasskeysModule } from '../passkeys/passkeys.module.js';
import { SecondFactorModule } from '../second-factor/second-factor.module.js';
import { MailModule } from '#libs/mail';
import { SessionsModule } from '../sessions/sessions.module.js';
import { EmailVerificationModule } from '../email-verification/email-verification.module.js';
import { AuthController } from './auth.controller.js';
import { AuthRepository } from './auth.repository.js';
import { AuthService } from './auth.service.js';
import { LoginRateLimiter } from './login-rate-limiter.service.js';
import { PasswordResetService } from './password-reset.service.js';
import { ResetCodeRateLimiter } from './reset-code-rate-limiter.service.js';
import { TurnstileVerifier } from './turnstile.verifier.js';

@Module({
  imports: [AccountsCoreModule, MailModule, SessionsModule, SecurityActivityModule, BreachedPasswordsModule, EmailVerificationModule, SecondFactorModule, PasskeysModule],
  controllers: [AuthController],
  providers: [AuthRepository, AuthService, PasswordResetService, LoginRateLimiter, ResetCodeRateLimiter, TurnstileVerifier],
  exports: [AuthService],
})
export class AuthModule {}
