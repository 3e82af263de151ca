import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiEnvelope, ApiErrors, CurrentUserId, ErrorCode, RateLimit, UseAuth, UUID_PARAM } from '#libs/common';
import { FreshFactorCheckDto } from '../second-factor/dto/second-factor.dto.js';
import { MFA_CODE_BUDGET_NOTE } from '../second-factor/second-factor.controller.js';
import type { ClientInfo } from '../sessions/sessions.service.js';
import { Client } from '../sign-in/client-info.decorator.js';
import { PasskeyDto, PasskeyListDto, PasskeyOptionsDto, PasskeyRegisteredDto, PasskeyRemovedDto, RegisterPasskeyDto, RenamePasskeyDto, StartPasskeyRegistrationDto } from './dto/passkey.dto.js';
import { PASSKEY_CHECK_TTL_SECONDS } from './passkey-assertions.service.js';
import { PASSKEY_CEREMONY_TTL_SECONDS, PASSKEYS_PER_ACCOUNT, PasskeysService } from './passkeys.service.js';

@ApiTags('Account')
@Controller('api/v1/account')
@UseAuth('jwt')
export class PasskeysController {
  constructor(private readonly passkeys: PasskeysService) {}

  @Get('passkeys')
  @RateLimit({ bucket: 'account-passkeys', limit: 120, windowSeconds: 60, storeOutage: 'fail-open' })
  @ApiOperation({ operationId: 'listPasskeys', summary: 'Your passkeys', description: 'Names and dates only: a passkey’s key never leaves the server.' })
  @ApiEnvelope(PasskeyListDto)
  @ApiErrors(ErrorCode.AUTH_REQUIRED, ErrorCode.RATE_LIMITED)
  list(@CurrentUserId() userId: string): Promise<PasskeyListDto> {
    return this.passkeys.list(userId);
  }

  @Post('passkey-options')
  @HttpCode(200)
  @RateLimit({ bucket: 'passkey-enrol', limit: 5, windowSeconds: 900, storeOutage: 'fail-closed', per: 'session' })
  @ApiOperation({
    operationId: 'startPasskeyRegistration',
    summary: 'Start registering a passkey',
    description:
      'Needs the current password and a confirmed e-mail address (403 EMAIL_NOT_VERIFIED otherwise), as enrolling an authenticator app. ' +
      'Answers WebAuthn creation options for @simplewebauthn/browser’s startRegistration (a discoverable credential, user verification ' +
      `required), usable once within ${PASSKEY_CEREMONY_TTL_SECONDS} seconds; then POST /api/v1/account/passkeys. At most ${PASSKEYS_PER_ACCOUNT} ` +
      'passkeys per account (409 CONFLICT beyond). Limited to 5 requests per 15 minutes per session.',
  })
  @ApiEnvelope(PasskeyOptionsDto)
  @ApiErrors(ErrorCode.AUTH_REQUIRED, ErrorCode.INVALID_CREDENTIALS, ErrorCode.EMAIL_NOT_VERIFIED, ErrorCode.CONFLICT, ErrorCode.RATE_LIMITED, ErrorCode.SERVICE_UNAVAILABLE)
  options(@CurrentUserId() userId: string, @Body() dto: StartPasskeyRegistrationDto): Promise<PasskeyOptionsDto> {
    return this.passkeys.registrationOptions(userId, dto);
  }

  @Post('passkey-check-options')
  @HttpCode(200)
  @RateLimit({ bucket: 'passkey-check-options', limit: 30, windowSeconds: 900, storeOutage: 'fail-closed', per: 'session' })
  @ApiOperation({
    operationId: 'startPasskeyFactorCheck',
    summary: 'Options for a fresh factor check by passkey',
    description:
      'Answers WebAuthn request options for @simplewebauthn/browser’s startAuthentication, for one of your passkeys, usable once within ' +
      `${PASSKEY_CHECK_TTL_SECONDS} seconds: its answer goes as \`passkey\` of a request that needs a fresh factor check (new recovery codes, ` +
      'turning the authenticator off, removing a passkey) instead of a code. No passkey: 404 NOT_FOUND. Limited to 30 requests per 15 minutes per session.',
  })
  @ApiEnvelope(PasskeyOptionsDto)
  @ApiErrors(ErrorCode.AUTH_REQUIRED, ErrorCode.NOT_FOUND, ErrorCode.RATE_LIMITED, ErrorCode.SERVICE_UNAVAILABLE)
  checkOptions(@CurrentUserId() userId: string): Promise<PasskeyOptionsDto> {
    return this.passkeys.freshCheckOptions(userId);
  }

  @Post('passkeys')
  @RateLimit({ bucket: 'passkey-register', limit: 10, windowSeconds: 900, storeOutage: 'fail-closed', per: 'session' })
  @ApiOperation({
    operationId: 'registerPasskey',
    summary: 'Register the passkey the browser created',
    description:
      '`credential`: what startRegistration answered for the options of POST /api/v1/account/passkey-options (used up here); `name` optional. ' +
      'From now on sign-in asks for a second factor (401 MFA_REQUIRED; the passkey answers it, see POST /api/v1/auth/mfa/passkey-options), and ' +
      'the passkey signs in without a password (POST /api/v1/auth/passkey/options). The account’s first second factor also answers ten ' +
      'single-use recovery codes, this once (for the places that take a typed code). Options unknown, expired or used, or a credential that does ' +
      'not verify: 400 VALIDATION_ERROR; a passkey registered already: 409 CONFLICT. Limited to 10 requests per 15 minutes per session.',
  })
  @ApiEnvelope(PasskeyRegisteredDto, { status: 201 })
  @ApiErrors(ErrorCode.AUTH_REQUIRED, ErrorCode.CONFLICT, ErrorCode.RATE_LIMITED, ErrorCode.SERVICE_UNAVAILABLE)
  register(@CurrentUserId() userId: string, @Body() dto: RegisterPasskeyDto, @Client() client: ClientInfo): Promise<PasskeyRegisteredDto> {
    return this.passkeys.register(userId, dto, client);
  }

  @Patch('passkeys/:passkeyId')
  @RateLimit({ bucket: 'passkey-rename', limit: 30, windowSeconds: 900, storeOutage: 'fail-closed', per: 'session' })
  @ApiOperation({ operationId: 'renamePasskey', summary: 'Rename a passkey', description: 'Another account’s passkey is 404 NOT_FOUND. Limited to 30 requests per 15 minutes per session.' })
  @ApiEnvelope(PasskeyDto)
  @ApiErrors(ErrorCode.AUTH_REQUIRED, ErrorCode.NOT_FOUND, ErrorCode.RATE_LIMITED, ErrorCode.SERVICE_UNAVAILABLE)
  rename(@CurrentUserId() userId: string, @Param('passkeyId', UUID_PARAM) passkeyId: string, @Body() dto: RenamePasskeyDto): Promise<PasskeyDto> {
    return this.passkeys.rename(userId, passkeyId, dto);
  }

  @Delete('passkeys/:passkeyId')
  @RateLimit({ bucket: 'mfa-fresh-check', limit: 5, windowSeconds: 900, storeOutage: 'fail-closed', per: 'session' })
  @ApiOperation({
    operationId: 'removePasskey',
    summary: 'Remove a passkey',
    description:
      'Needs a fresh factor check, as turning the authenticator off: the current password and exactly one of `code` (the authenticator’s ' +
      'current code), `recoveryCode` (used up) or `passkey` (see POST /api/v1/account/passkey-check-options). A wrong password, code or passkey is 401 INVALID_CREDENTIALS; another account’s passkey 404 ' +
      'NOT_FOUND. With the last second factor gone, the recovery codes go too and sign-in asks for the password alone. Limited to 5 requests ' +
      `per 15 minutes per session (shared with turning the authenticator off). ${MFA_CODE_BUDGET_NOTE}`,
  })
  @ApiEnvelope(PasskeyRemovedDto)
  @ApiErrors(ErrorCode.AUTH_REQUIRED, ErrorCode.INVALID_CREDENTIALS, ErrorCode.NOT_FOUND, ErrorCode.RATE_LIMITED, ErrorCode.SERVICE_UNAVAILABLE)
  remove(@CurrentUserId() userId: string, @Param('passkeyId', UUID_PARAM) passkeyId: string, @Body() dto: FreshFactorCheckDto, @Client() client: ClientInfo): Promise<PasskeyRemovedDto> {
    return this.passkeys.remove(userId, passkeyId, dto, client);
  }
}
