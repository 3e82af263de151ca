import { Body, Controller, Delete, Get } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiEnvelope, ApiErrors, CurrentUserId, ErrorCode, RateLimit, UseAuth } from '#libs/common';
import { Client, CURRENT_FACTOR_NOTE, type ClientInfo } from '#libs/identity';
import { AccountService } from './account.service.js';
import { AccountDeletedDto, AccountExportDto, DeleteAccountDto } from './dto/account.dto.js';

@ApiTags('Account')
@Controller('api/v1/account')
@UseAuth('jwt')
export class AccountController {
  constructor(private readonly account: AccountService) {}

  @Get('export')
  @RateLimit({ bucket: 'account-export', limit: 30, windowSeconds: 3600, storeOutage: 'fail-open' })
  @ApiOperation({
    operationId: 'exportAccount',
    summary: 'Export all data of your account',
    description: 'The account, todos, API key records, sessions and subscription (version `v1`). No secrets or hashes.',
  })
  @ApiEnvelope(AccountExportDto)
  @ApiErrors(ErrorCode.AUTH_REQUIRED, ErrorCode.RATE_LIMITED)
  export(@CurrentUserId() userId: string): Promise<AccountExportDto> {
    return this.account.export(userId);
  }

  @Delete()
  @RateLimit({ bucket: 'account-delete', limit: 10, windowSeconds: 900, storeOutage: 'fail-closed', per: 'session' })
  @ApiOperation({
    operationId: 'deleteAccount',
    summary: 'Delete your account and everything it owns',
    description:
      'Needs the current password and `confirmText: "DELETE"`. Cancels a paid subscription at the payment provider first ' +
      '(if that fails, nothing is deleted: 502/503), then removes the account and all its data in both services in one ' +
      'transaction; its sessions, API keys and open event streams stop at once. Limited to 10 requests per 15 minutes per ' +
      `session (a stolen access token cannot keep guessing the password). ${CURRENT_FACTOR_NOTE}`,
  })
  @ApiEnvelope(AccountDeletedDto)
  @ApiErrors(ErrorCode.AUTH_REQUIRED, ErrorCode.INVALID_CREDENTIALS, ErrorCode.MFA_CODE_REQUIRED, ErrorCode.RATE_LIMITED, ErrorCode.PAYMENT_PROVIDER_ERROR, ErrorCode.BILLING_UNAVAILABLE, ErrorCode.SERVICE_UNAVAILABLE)
  delete(@CurrentUserId() userId: string, @Body() body: DeleteAccountDto, @Client() client: ClientInfo): Promise<AccountDeletedDto> {
    return this.account.delete(userId, body, client);
  }
}
