import { Body, Controller, Get, HttpCode, Post } from '@nestjs/common';
import { ApiHeader, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiEnvelope, ApiErrors, CurrentPrincipal, CurrentUserId, ErrorCode, Public, RateLimit, UseAuth, type PrincipalOf } from '#libs/common';
import type { ClientInfo } from '../sessions/sessions.service.js';
import { AuthService } from './auth.service.js';
import { Client, IdempotencyKey } from './client-info.decorator.js';
import { ChangePasswordDto, ForgotPasswordDto, LoginDto, LogoutDto, RefreshDto, ResetPasswordDto, SignupDto, VerifyResetCodeDto } from './dto/auth-requests.dto.js';
import { AuthTokenDataDto, MessageDto, PasswordChangedDto, ResetTokenDto, VerifyDataDto } from './dto/auth-responses.dto.js';
import { PasswordResetService } from './password-reset.service.js';
import { BREACHED_PASSWORD_NOTE } from '../breached-passwords/breached-passwords.service.js';
import { MfaPasskeyOptionsDto, PasskeyOptionsDto, PasskeySignInDto } from '../passkeys/dto/passkey.dto.js';
import { PASSKEY_CEREMONY_TTL_SECONDS, PasskeysService } from '../passkeys/passkeys.service.js';
import { MfaVerifyDto } from '../second-factor/dto/second-factor.dto.js';
import { CURRENT_FACTOR_NOTE, MFA_CODE_BUDGET_NOTE } from '../second-factor/second-factor.controller.js';

@ApiTags('Auth')
@Controller('api/v1/auth')
export class AuthController {
  constructor(
    private readonly auth: AuthService,
    private readonly passwordReset: PasswordResetService,
    private readonly passkeys: PasskeysService,
  ) {}

  @Post('signup')
  @Public()
  @RateLimit({ bucket: 'signup', limit: 30, windowSeconds: 3600, storeOutage: 'fail-closed' })
  @ApiOperation({
    operationId: 'signup',
    summary: 'Create an account and sign in',
    description:
      'username is optional (derived from the e-mail and made unique when absent). When the bot challenge is enabled ' +
      '(TURNSTILE_SECRET_KEY), turnstileToken is required: missing or refused is 400 BOT_CHALLENGE_FAILED, and a bot-check ' +
      'service that cannot be reached fails closed with 503 SERVICE_UNAVAILABLE. Limited to 30 requests per hour per client IP. ' +
      'Hashing the new password waits behind sign-ins; when too many sign-ups are waiting, 503 SERVICE_UNAVAILABLE with Retry-After. ' +
      BREACHED_PASSWORD_NOTE,
  })
  @ApiEnvelope(AuthTokenDataDto, { status: 201 })
  @ApiErrors(ErrorCode.BOT_CHALLENGE_FAILED, ErrorCode.PASSWORD_BREACHED, ErrorCode.EMAIL_TAKEN, ErrorCode.USERNAME_TAKEN, ErrorCode.RATE_LIMITED, ErrorCode.SERVICE_UNAVAILABLE)
  signup(@Body() dto: SignupDto, @Client() client: ClientInfo): Promise<AuthTokenDataDto> {
    return this.auth.signup(dto, client);
  }

  @Post('login')
  @Public()
  @HttpCode(200)
  @ApiOperation({
    operationId: 'login',
    summary: 'Sign in with e-mail and password',
    description:
      'Failed attempts are limited to 10 per 15 minutes per (client IP, e-mail) and 100 per 15 minutes per client IP; ' +
      'beyond that 429 RATE_LIMITED with Retry-After (the password is not checked). A successful sign-in does not count. ' +
      'RateLimit-Limit/Remaining/Reset are sent with 401 and 429. ' +
      'An account with a second factor (an authenticator app, see /api/v1/account/mfa) answers the right password with 401 ' +
      'MFA_REQUIRED, whose error.details hold `challengeToken` (single-use, valid `expiresIn` seconds: 300) and `methods`; then ' +
      'POST /api/v1/auth/mfa/verify. An account without one is answered as always.',
  })
  @ApiEnvelope(AuthTokenDataDto)
  @ApiErrors(ErrorCode.INVALID_CREDENTIALS, ErrorCode.MFA_REQUIRED, ErrorCode.RATE_LIMITED, ErrorCode.SERVICE_UNAVAILABLE)
  login(@Body() dto: LoginDto, @Client() client: ClientInfo): Promise<AuthTokenDataDto> {
    return this.auth.login(dto, client);
  }

  @Post('mfa/verify')
  @Public()
  @HttpCode(200)
  @ApiOperation({
    operationId: 'verifyMfa',
    summary: 'Finish a sign-in that answered MFA_REQUIRED',
    description:
      'challengeToken from the MFA_REQUIRED answer and exactly one of `code` (the authenticator’s current code) or `recoveryCode`, ' +
      'or `passkey`: what startAuthentication answered for the options of POST /api/v1/auth/mfa/passkey-options (a passkey not accepted is 401 INVALID_CREDENTIALS). ' +
      'Answers exactly what login answers. A code is accepted once (a code already used, even within its 30 seconds, is refused), ' +
      'and each recovery code works once. A wrong code is 401 INVALID_CREDENTIALS and the challenge stays usable; an unknown, ' +
      `expired or used challenge is 401 INVALID_TOKEN (sign in again). ${MFA_CODE_BUDGET_NOTE}`,
  })
  @ApiEnvelope(AuthTokenDataDto)
  @ApiErrors(ErrorCode.INVALID_CREDENTIALS, ErrorCode.INVALID_TOKEN, ErrorCode.RATE_LIMITED, ErrorCode.SERVICE_UNAVAILABLE)
  verifyMfa(@Body() dto: MfaVerifyDto, @Client() client: ClientInfo): Promise<AuthTokenDataDto> {
    return this.auth.verifySecondFactor(dto, client);
  }

  @Post('mfa/passkey-options')
  @Public()
  @HttpCode(200)
  @RateLimit({ bucket: 'mfa-passkey-options', limit: 30, windowSeconds: 900, storeOutage: 'fail-closed' })
  @ApiOperation({
    operationId: 'mfaPasskeyOptions',
    summary: 'Answer a sign-in challenge with a passkey: its options',
    description:
      'For a challenge whose `methods` include `passkey`: WebAuthn request options (the account’s passkeys) for @simplewebauthn/browser’s ' +
      'startAuthentication; send its answer as `passkey` to POST /api/v1/auth/mfa/verify. New options replace earlier ones of the challenge. ' +
      'An unknown, expired or used challenge is 401 INVALID_TOKEN; an account without a passkey 404 NOT_FOUND. Limited to 30 requests per 15 minutes per client IP.',
  })
  @ApiEnvelope(PasskeyOptionsDto)
  @ApiErrors(ErrorCode.INVALID_TOKEN, ErrorCode.NOT_FOUND, ErrorCode.RATE_LIMITED, ErrorCode.SERVICE_UNAVAILABLE)
  mfaPasskeyOptions(@Body() dto: MfaPasskeyOptionsDto): Promise<PasskeyOptionsDto> {
    return this.passkeys.mfaOptions(dto);
  }

  @Post('passkey/options')
  @Public()
  @HttpCode(200)
  @RateLimit({ bucket: 'passkey-sign-in-options', limit: 30, windowSeconds: 900, storeOutage: 'fail-closed' })
  @ApiOperation({
    operationId: 'passkeySignInOptions',
    summary: 'Sign in with a passkey, no password: its options',
    description:
      'WebAuthn request options for @simplewebauthn/browser’s startAuthentication (no e-mail asked: the browser offers the passkeys it ' +
      `holds for this site), usable once within ${PASSKEY_CEREMONY_TTL_SECONDS} seconds; then POST /api/v1/auth/passkey/verify. ` +
      'Limited to 30 requests per 15 minutes per client IP.',
  })
  @ApiEnvelope(PasskeyOptionsDto)
  @ApiErrors(ErrorCode.RATE_LIMITED, ErrorCode.SERVICE_UNAVAILABLE)
  passkeySignInOptions(): Promise<PasskeyOptionsDto> {
    return this.passkeys.signInOptions();
  }

  @Post('passkey/verify')
  @Public()
  @HttpCode(200)
  @ApiOperation({
    operationId: 'passkeySignIn',
    summary: 'Sign in with a passkey, no password',
    description:
      '`credential`: what startAuthentication answered for the options of POST /api/v1/auth/passkey/options (used up here, whatever the ' +
      'outcome). Answers exactly what login answers; the passkey (verified by its holder) stands for both factors. Any refusal (options ' +
      'unknown, expired or used, a passkey not registered, a signature that does not verify) is the same 401 INVALID_CREDENTIALS. ' +
      MFA_CODE_BUDGET_NOTE.replace('Wrong codes are', 'Refused passkeys are').replace('A right code', 'An accepted passkey'),
  })
  @ApiEnvelope(AuthTokenDataDto)
  @ApiErrors(ErrorCode.INVALID_CREDENTIALS, ErrorCode.RATE_LIMITED, ErrorCode.SERVICE_UNAVAILABLE)
  passkeySignIn(@Body() dto: PasskeySignInDto, @Client() client: ClientInfo): Promise<AuthTokenDataDto> {
    return this.auth.signInWithPasskey(dto, client);
  }

  @Get('verify')
  @UseAuth('jwt')
  @ApiOperation({ operationId: 'verifyToken', summary: 'Check an access token and return its user' })
  @ApiEnvelope(VerifyDataDto)
  @ApiErrors(ErrorCode.AUTH_REQUIRED)
  verify(@CurrentUserId() userId: string): Promise<VerifyDataDto> {
    return this.auth.verify(userId);
  }

  @Post('refresh')
  @Public()
  @HttpCode(200)
  @ApiOperation({
    operationId: 'refreshToken',
    summary: 'Exchange a refresh token for a new token pair',
    description:
      'The refresh token is rotated: store both returned values. Presenting a refresh token that was already rotated ' +
      'is treated as theft: the whole session is revoked and the answer is 401 INVALID_TOKEN (this includes two ' +
      'concurrent refreshes with one token: exactly one succeeds, then the session is revoked; coordinate refreshes ' +
      'between tabs). Retry grace: send an Idempotency-Key header with each refresh; if the answer is lost, repeating ' +
      'the same request (same refresh token and same Idempotency-Key) within 30 seconds, while the new refresh token ' +
      'has not been used, returns the same new refresh token (and a fresh access token) instead of revoking the session.',
  })
  @ApiHeader({ name: 'Idempotency-Key', required: false, description: 'A fresh random value per refresh (1..255 visible ASCII characters); repeat it only to retry that refresh' })
  @ApiEnvelope(AuthTokenDataDto)
  @ApiErrors(ErrorCode.INVALID_TOKEN)
  refresh(@Body() dto: RefreshDto, @IdempotencyKey() retryKey?: string): Promise<AuthTokenDataDto> {
    return this.auth.refresh(dto.refreshToken, retryKey);
  }

  @Post('logout')
  @UseAuth('jwt')
  @HttpCode(200)
  // Signing out must work while the counters' store is down.
  @RateLimit({ bucket: 'logout', limit: 30, windowSeconds: 60, storeOutage: 'fail-open', per: 'session' })
  @ApiOperation({
    operationId: 'logout',
    summary: 'Sign out',
    description:
      'allSessions true: every session of the account. refreshToken: the session holding that refresh token (ignored when ' +
      'it is not one of yours). Neither: the session of the access token used.',
  })
  @ApiEnvelope(MessageDto)
  @ApiErrors(ErrorCode.AUTH_REQUIRED)
  logout(@CurrentPrincipal() principal: PrincipalOf<'user'>, @Body() dto: LogoutDto): Promise<MessageDto> {
    return this.auth.logout(principal.userId, principal.sessionId, dto);
  }

  @Post('forgot-password')
  @Public()
  @HttpCode(200)
  @RateLimit({ bucket: 'forgot-password', limit: 30, windowSeconds: 3600, storeOutage: 'fail-closed' })
  @ApiOperation({
    operationId: 'forgotPassword',
    summary: 'E-mail a 6-digit reset code',
    description:
      'Always the same answer, whether or not an account uses the e-mail. The code is valid 15 minutes for 5 tries ' +
      '(per client IP); a new request replaces the previous code and gives the caller its 5 tries back. Limited to 30 ' +
      'requests per hour per client IP and 5 per hour per e-mail (counted for any e-mail, registered or not).',
  })
  @ApiEnvelope(MessageDto)
  @ApiErrors(ErrorCode.RATE_LIMITED, ErrorCode.SERVICE_UNAVAILABLE)
  forgotPassword(@Body() dto: ForgotPasswordDto, @Client() client: ClientInfo): Promise<MessageDto> {
    return this.passwordReset.forgotPassword(dto, client);
  }

  @Post('verify-reset-code')
  @Public()
  @HttpCode(200)
  @ApiOperation({
    operationId: 'verifyResetCode',
    summary: 'Trade the e-mailed code for a reset token',
    description:
      'A wrong, expired or replaced code, or an e-mail without an account, is the same 400 INVALID_RESET_CODE. Guesses are ' +
      'counted before the code is checked: 5 per 15 minutes per (client IP, e-mail) (a new code from forgot-password starts ' +
      'them over), 30 per hour per client IP, and 25 per hour per e-mail; beyond any of them 429 RATE_LIMITED with Retry-After ' +
      '(the code is not checked). RateLimit-Limit/Remaining/Reset are sent with 400 and 429. The reset token is single-use ' +
      'and valid 15 minutes.',
  })
  @ApiEnvelope(ResetTokenDto)
  @ApiErrors(ErrorCode.INVALID_RESET_CODE, ErrorCode.RATE_LIMITED, ErrorCode.SERVICE_UNAVAILABLE)
  verifyResetCode(@Body() dto: VerifyResetCodeDto, @Client() client: ClientInfo): Promise<ResetTokenDto> {
    return this.passwordReset.verifyResetCode(dto, client);
  }

  @Post('reset-password')
  @Public()
  @HttpCode(200)
  @ApiOperation({
    operationId: 'resetPassword',
    summary: 'Set a new password with a reset token',
    description:
      'A missing, unknown, expired or used token is 400 INVALID_TOKEN; a password outside 8..128 characters or a ' +
      'different passwordConfirm is 400 VALIDATION_ERROR. Every session of the account is revoked, and every connected app ' +
      '(OAuth grant: its access and refresh tokens), listed in `disconnectedApps`. The account’s sign-in lock (too many failed ' +
      'sign-ins for its e-mail) ends, and the address that reset the password is exempt from it for an hour. ' +
      BREACHED_PASSWORD_NOTE,
  })
  @ApiEnvelope(PasswordChangedDto)
  @ApiErrors(ErrorCode.INVALID_RESET_TOKEN, ErrorCode.PASSWORD_BREACHED)
  resetPassword(@Body() dto: ResetPasswordDto, @Client() client: ClientInfo): Promise<PasswordChangedDto> {
    return this.passwordReset.resetPassword(dto, client);
  }

  @Post('change-password')
  @UseAuth('jwt')
  @HttpCode(200)
  @RateLimit({ bucket: 'change-password', limit: 5, windowSeconds: 900, storeOutage: 'fail-closed', per: 'session' })
  @ApiOperation({
    operationId: 'changePassword',
    summary: 'Change the password',
    description:
      'Every session is revoked, the caller’s own included: sign in again with the new password. Every connected app (OAuth ' +
      'grant: its access and refresh tokens) is revoked too, listed in `disconnectedApps`. Limited to 5 requests ' +
      'per 15 minutes per session (a stolen access token cannot keep guessing the current password). ' +
      `${CURRENT_FACTOR_NOTE} ${BREACHED_PASSWORD_NOTE}`,
  })
  @ApiEnvelope(PasswordChangedDto)
  @ApiErrors(ErrorCode.AUTH_REQUIRED, ErrorCode.INVALID_CREDENTIALS, ErrorCode.MFA_CODE_REQUIRED, ErrorCode.PASSWORD_BREACHED, ErrorCode.RATE_LIMITED, ErrorCode.SERVICE_UNAVAILABLE)
  changePassword(@CurrentUserId() userId: string, @Body() dto: ChangePasswordDto, @Client() client: ClientInfo): Promise<PasswordChangedDto> {
    return this.auth.changePassword(userId, dto, client);
  }
}
