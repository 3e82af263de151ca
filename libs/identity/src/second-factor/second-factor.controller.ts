import { Body, Controller, Delete, Get, HttpCode, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiEnvelope, ApiErrors, CurrentUserId, ErrorCode, RateLimit, UseAuth } from '#libs/common';
import type { ClientInfo } from '../sessions/sessions.service.js';
import { Client } from '../sign-in/client-info.decorator.js';
import { ConfirmTotpDto, FreshFactorCheckDto, MfaDisabledDto, MfaStatusDto, RecoveryCodesDto, StartTotpDto, TotpEnrolmentDto } from './dto/second-factor.dto.js';
import { MFA_FAILURES_PER_ACCOUNT, MFA_FAILURES_PER_ACCOUNT_PER_DAY, MFA_FAILURES_PER_IP } from './second-factor-rate-limiter.service.js';
import { SecondFactorService } from './second-factor.service.js';

/** Said of every route that checks a code. */
export const MFA_CODE_BUDGET_NOTE =
  `Wrong codes are counted per account wherever they are typed (sign-in, confirmation, fresh checks): ${MFA_FAILURES_PER_ACCOUNT} per 15 minutes and ` +
  `${MFA_FAILURES_PER_ACCOUNT_PER_DAY} per day, and ${MFA_FAILURES_PER_IP} per 15 minutes per client IP; beyond any of them 429 RATE_LIMITED with Retry-After ` +
  '(the code is not checked). A right code does not count.';

/** Said of the sensitive changes that ask an account with a second factor for a current one (password change, deletion). */
export const CURRENT_FACTOR_NOTE =
  'An account with a second factor also sends `code` (the authenticator’s current code, or an unused recovery code, which it ' +
  'uses up), or instead `passkey` (an assertion over the options of POST /api/v1/account/passkey-check-options): without either 401 MFA_CODE_REQUIRED (send the request again with `code`), a wrong one 401 ' +
  `INVALID_CREDENTIALS; accounts without one need no code. ${MFA_CODE_BUDGET_NOTE}`;

const FRESH_CHECK_NOTE =
  'Needs a fresh factor check: the current password and exactly one of `code` (the authenticator’s current code), `recoveryCode` ' +
  '(which it uses up) or `passkey` (an assertion over the options of POST /api/v1/account/passkey-check-options, once). A wrong password, code or passkey is 401 INVALID_CREDENTIALS. ';

@ApiTags('Account')
@Controller('api/v1/account/mfa')
@UseAuth('jwt')
export class SecondFactorController {
  constructor(private readonly secondFactor: SecondFactorService) {}

  @Get()
  @RateLimit({ bucket: 'account-mfa', limit: 120, windowSeconds: 60, storeOutage: 'fail-open' })
  @ApiOperation({ operationId: 'getMfaStatus', summary: 'Whether your account asks for a second factor', description: 'No secret is ever shown again after enrolment.' })
  @ApiEnvelope(MfaStatusDto)
  @ApiErrors(ErrorCode.AUTH_REQUIRED, ErrorCode.RATE_LIMITED)
  status(@CurrentUserId() userId: string): Promise<MfaStatusDto> {
    return this.secondFactor.status(userId);
  }

  @Post('totp')
  @RateLimit({ bucket: 'mfa-enrol', limit: 5, windowSeconds: 900, storeOutage: 'fail-closed', per: 'session' })
  @ApiOperation({
    operationId: 'startTotpEnrolment',
    summary: 'Start enrolling an authenticator app (TOTP)',
    description:
      'Needs the current password and a confirmed e-mail address (403 EMAIL_NOT_VERIFIED otherwise: POST /api/v1/auth/verify-email). Answers the secret, its otpauth:// URI and the URI as a QR code; the factor stays pending (sign-in ' +
      'does not ask for it) until confirmed with a first code. Starting again replaces a pending enrolment; with a confirmed ' +
      'authenticator it is 409 CONFLICT (disable it first). Limited to 5 requests per 15 minutes per session.',
  })
  @ApiEnvelope(TotpEnrolmentDto, { status: 201 })
  @ApiErrors(ErrorCode.AUTH_REQUIRED, ErrorCode.INVALID_CREDENTIALS, ErrorCode.EMAIL_NOT_VERIFIED, ErrorCode.CONFLICT, ErrorCode.RATE_LIMITED, ErrorCode.SERVICE_UNAVAILABLE)
  start(@CurrentUserId() userId: string, @Body() dto: StartTotpDto): Promise<TotpEnrolmentDto> {
    return this.secondFactor.startTotp(userId, dto);
  }

  @Post('totp/confirm')
  @HttpCode(200)
  @RateLimit({ bucket: 'mfa-confirm', limit: 10, windowSeconds: 900, storeOutage: 'fail-closed', per: 'session' })
  @ApiOperation({
    operationId: 'confirmTotpEnrolment',
    summary: 'Confirm the authenticator with its first code',
    description:
      'From now on sign-in asks for a second factor (401 MFA_REQUIRED, then POST /api/v1/auth/mfa/verify). Answers the ten single-use ' +
      'recovery codes, this once (they are stored hashed). No pending enrolment: 404 NOT_FOUND; already confirmed: 409 CONFLICT; a ' +
      `wrong code: 401 INVALID_CREDENTIALS. ${MFA_CODE_BUDGET_NOTE}`,
  })
  @ApiEnvelope(RecoveryCodesDto)
  @ApiErrors(ErrorCode.AUTH_REQUIRED, ErrorCode.INVALID_CREDENTIALS, ErrorCode.NOT_FOUND, ErrorCode.CONFLICT, ErrorCode.RATE_LIMITED, ErrorCode.SERVICE_UNAVAILABLE)
  confirm(@CurrentUserId() userId: string, @Body() dto: ConfirmTotpDto, @Client() client: ClientInfo): Promise<RecoveryCodesDto> {
    return this.secondFactor.confirmTotp(userId, dto, client);
  }

  @Delete('totp')
  @RateLimit({ bucket: 'mfa-fresh-check', limit: 5, windowSeconds: 900, storeOutage: 'fail-closed', per: 'session' })
  @ApiOperation({
    operationId: 'disableTotp',
    summary: 'Turn the second factor off',
    description:
      `${FRESH_CHECK_NOTE}The authenticator and every recovery code are removed; sign-in asks for the password alone again. No ` +
      `second factor: 404 NOT_FOUND. Limited to 5 requests per 15 minutes per session. ${MFA_CODE_BUDGET_NOTE}`,
  })
  @ApiEnvelope(MfaDisabledDto)
  @ApiErrors(ErrorCode.AUTH_REQUIRED, ErrorCode.INVALID_CREDENTIALS, ErrorCode.NOT_FOUND, ErrorCode.RATE_LIMITED, ErrorCode.SERVICE_UNAVAILABLE)
  disable(@CurrentUserId() userId: string, @Body() dto: FreshFactorCheckDto, @Client() client: ClientInfo): Promise<MfaDisabledDto> {
    return this.secondFactor.disableTotp(userId, dto, client);
  }

  @Post('recovery-codes')
  @HttpCode(200)
  @RateLimit({ bucket: 'mfa-fresh-check', limit: 5, windowSeconds: 900, storeOutage: 'fail-closed', per: 'session' })
  @ApiOperation({
    operationId: 'regenerateRecoveryCodes',
    summary: 'Replace the recovery codes',
    description:
      `${FRESH_CHECK_NOTE}Answers ten new single-use recovery codes, this once; the earlier ones stop working. No second factor (neither an authenticator nor a passkey): ` +
      `404 NOT_FOUND. Limited to 5 requests per 15 minutes per session (shared with disabling). ${MFA_CODE_BUDGET_NOTE}`,
  })
  @ApiEnvelope(RecoveryCodesDto)
  @ApiErrors(ErrorCode.AUTH_REQUIRED, ErrorCode.INVALID_CREDENTIALS, ErrorCode.NOT_FOUND, ErrorCode.RATE_LIMITED, ErrorCode.SERVICE_UNAVAILABLE)
  regenerateRecoveryCodes(@CurrentUserId() userId: string, @Body() dto: FreshFactorCheckDto, @Client() client: ClientInfo): Promise<RecoveryCodesDto> {
    return this.secondFactor.regenerateRecoveryCodes(userId, dto, client);
  }
}

