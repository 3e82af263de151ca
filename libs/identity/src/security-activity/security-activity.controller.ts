import { Controller, Get, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiEnvelope, ApiErrors, CurrentUserId, ErrorCode, RateLimit, UseAuth } from '#libs/common';
import { ListSecurityActivityQuery, SecurityActivityPageDto } from './dto/security-activity.dto.js';
import { SecurityActivityService } from './security-activity.service.js';

@ApiTags('Account')
@Controller('api/v1/account/activity')
@UseAuth('jwt')
export class SecurityActivityController {
  constructor(private readonly activity: SecurityActivityService) {}

  @Get()
  @RateLimit({ bucket: 'account-activity', limit: 120, windowSeconds: 60, storeOutage: 'fail-open' })
  @ApiOperation({
    operationId: 'listAccountActivity',
    summary: 'The security activity of your account',
    description:
      'Newest first, cursor-paged (`limit` 1..100, default 50; `nextCursor` until the end): sign-ins (with device and IP), failed ' +
      'sign-ins, password changes and resets, session revocations, API keys created, rotated and revoked, apps connected and ' +
      'disconnected, beta access granted and revoked, subscription changes. Kept 90 days, at most the newest 1000 entries.',
  })
  @ApiEnvelope(SecurityActivityPageDto)
  @ApiErrors(ErrorCode.AUTH_REQUIRED, ErrorCode.VALIDATION_ERROR, ErrorCode.RATE_LIMITED)
  list(@CurrentUserId() userId: string, @Query() query: ListSecurityActivityQuery): Promise<SecurityActivityPageDto> {
    return this.activity.list(userId, query);
  }
}
