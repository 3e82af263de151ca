import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiEnvelope, ApiErrors, CurrentUserId, ErrorCode, Public, RateLimit, UseAuth } from '#libs/common';
import type { ClientInfo } from '../sessions/sessions.service.js';
import { Client } from '../sign-in/client-info.decorator.js';
import { MessageDto, PasswordChangedDto } from '../sign-in/dto/auth-responses.dto.js';
import { ChangeEmailDto, EmailTokenDto } from './dto/email-verification.dto.js';
import { EmailVerificationService } from './email-verification.service.js';

const TOKEN_NOTE = 'An unknown, expired, used or replaced code is 400 INVALID_TOKEN (one answer for all). Limited to 30 requests per hour per client IP.';

@ApiTags('Auth')
@Controller('api/v1')
export class EmailVerificationController {
  constructor(private readonly verification: EmailVerificationService) {}

  @Post('auth/verify-email')
  @Public()
  @HttpCode(200)
  @RateLimit({ bucket: 'verify-email', limit: 30, windowSeconds: 3600, storeOutage: 'fail-closed' })
  @ApiOperation({
    operationId: 'verifyEmail',
    summary: 'Confirm the account’s e-mail address with the mailed code',
    description:
      'Signup mails a code (valid 24 hours, once) to the new account’s address; using it sets the user’s `email_confirmed` to 1. ' +
      'Nothing else waits for it: every other route answers an unconfirmed account as before. ' + TOKEN_NOTE,
  })
  @ApiEnvelope(MessageDto)
  @ApiErrors(ErrorCode.INVALID_EMAIL_TOKEN, ErrorCode.RATE_LIMITED, ErrorCode.SERVICE_UNAVAILABLE)
  verifyEmail(@Body() dto: EmailTokenDto, @Client() client: ClientInfo): Promise<MessageDto> {
    return this.verification.verify(dto.token, client);
  }

  @Post('auth/verify-email/resend')
  @UseAuth('jwt')
  @HttpCode(200)
  @RateLimit({ bucket: 'verify-email-resend', limit: 3, windowSeconds: 3600, storeOutage: 'fail-closed' })
  @ApiOperation({
    operationId: 'resendVerificationEmail',
    summary: 'Mail a new confirmation code to the account’s address',
    description:
      'The previous code stops working. Nothing is sent when the address is already confirmed (same answer). Limited to 3 requests per hour per account.',
  })
  @ApiEnvelope(MessageDto)
  @ApiErrors(ErrorCode.AUTH_REQUIRED, ErrorCode.RATE_LIMITED, ErrorCode.SERVICE_UNAVAILABLE)
  resend(@CurrentUserId() userId: string): Promise<MessageDto> {
    return this.verification.resend(userId);
  }

  @Post('account/email')
  @UseAuth('jwt')
  @HttpCode(200)
  @RateLimit({ bucket: 'change-email', limit: 5, windowSeconds: 900, storeOutage: 'fail-closed', per: 'session' })
  @ApiOperation({
    operationId: 'requestEmailChange',
    summary: 'Ask to change the account’s e-mail address',
    description:
      'Needs the current password and a confirmed current address (403 EMAIL_NOT_VERIFIED otherwise). A code (valid 24 hours, once) is ' +
      'mailed to the new address; the address changes when it is used (POST /api/v1/account/email/confirm). The answer is the same ' +
      'whether or not another account uses the new address (then nothing is sent). Limited to 5 requests per 15 minutes per session; ' +
      'at most 3 codes a day to one address and 10 a day per account (more are not sent, same answer).',
  })
  @ApiEnvelope(MessageDto)
  @ApiErrors(ErrorCode.AUTH_REQUIRED, ErrorCode.VALIDATION_ERROR, ErrorCode.INVALID_CREDENTIALS, ErrorCode.EMAIL_NOT_VERIFIED, ErrorCode.RATE_LIMITED, ErrorCode.SERVICE_UNAVAILABLE)
  requestChange(@CurrentUserId() userId: string, @Body() dto: ChangeEmailDto, @Client() client: ClientInfo): Promise<MessageDto> {
    return this.verification.requestChange(userId, dto, client);
  }

  @Post('account/email/confirm')
  @Public()
  @HttpCode(200)
  @RateLimit({ bucket: 'confirm-email-change', limit: 30, windowSeconds: 3600, storeOutage: 'fail-closed' })
  @ApiOperation({
    operationId: 'confirmEmailChange',
    summary: 'Change the e-mail address with the code mailed to the new address',
    description:
      'The account’s address becomes the new one, confirmed; sessions, API keys and connected apps stay. The old address gets a ' +
      'notice with a code that puts it back within 7 days (POST /api/v1/account/email/revert). 409 EMAIL_TAKEN when another account ' +
      'took the address meanwhile. ' + TOKEN_NOTE,
  })
  @ApiEnvelope(MessageDto)
  @ApiErrors(ErrorCode.INVALID_EMAIL_TOKEN, ErrorCode.EMAIL_TAKEN, ErrorCode.RATE_LIMITED, ErrorCode.SERVICE_UNAVAILABLE)
  confirmChange(@Body() dto: EmailTokenDto, @Client() client: ClientInfo): Promise<MessageDto> {
    return this.verification.confirmChange(dto.token, client);
  }

  @Post('account/email/revert')
  @Public()
  @HttpCode(200)
  @RateLimit({ bucket: 'revert-email-change', limit: 30, windowSeconds: 3600, storeOutage: 'fail-closed' })
  @ApiOperation({
    operationId: 'revertEmailChange',
    summary: 'Put the previous e-mail address back with the code mailed to it',
    description:
      'For 7 days after a change, the code in the notice to the old address restores it (confirmed), ends pending changes, and ' +
      'revokes every session and connected app (listed in `disconnectedApps`): whoever made the change knew the password, so reset it ' +
      'next. 409 EMAIL_TAKEN when another account took the old address meanwhile. ' + TOKEN_NOTE,
  })
  @ApiEnvelope(PasswordChangedDto)
  @ApiErrors(ErrorCode.INVALID_EMAIL_TOKEN, ErrorCode.EMAIL_TAKEN, ErrorCode.RATE_LIMITED, ErrorCode.SERVICE_UNAVAILABLE)
  revert(@Body() dto: EmailTokenDto, @Client() client: ClientInfo): Promise<PasswordChangedDto> {
    return this.verification.revert(dto.token, client);
  }
}
