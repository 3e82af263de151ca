import { Body, Controller, Get, HttpCode, Post, Query, Req } from '@nestjs/common';
import { ApiBody, ApiExtraModels, ApiOperation, ApiTags, getSchemaPath } from '@nestjs/swagger';
import type { Request } from 'express';
import { ApiEnvelope, ApiErrors, ErrorCode, RateLimit, UseAuth } from '#libs/common';
import { ADMIN_KEY_FAILURES_PER_IP, ADMIN_KEY_WINDOW_SECONDS } from './admin-key.guard.js';
import { BetaAccessService } from './beta-access.service.js';
import { BetaAccessByEmailDto, BetaAccessByUserIdDto, BetaAccessRequestDto, BetaAccessResultDto } from './dto/beta-access.dto.js';
import { BETA_GRANTS_PAGE, BetaGrantPageDto, ListBetaGrantsQuery } from './dto/beta-grants.dto.js';

/** Exactly one of userId or email. */
const BETA_ACCESS_BODY = {
  schema: { oneOf: [{ $ref: getSchemaPath(BetaAccessByUserIdDto) }, { $ref: getSchemaPath(BetaAccessByEmailDto) }] },
  examples: {
    byUserId: { summary: 'By user id', value: { userId: '3b241101-e2bb-4255-8caf-4136c566a962' } },
    byEmail: { summary: 'By e-mail', value: { email: 'ada@example.com' } },
  },
};

const ADMIN_KEY_LIMIT =
  `A wrong or missing admin key is counted: ${ADMIN_KEY_FAILURES_PER_IP} failures per ${ADMIN_KEY_WINDOW_SECONDS / 60} minutes per client IP, ` +
  'then 429 RATE_LIMITED with Retry-After (the key is not checked); a correct key does not count.';

function requestIdOf(request: Request): string | undefined {
  const id = (request as Request & { id?: unknown }).id;
  return typeof id === 'string' ? id : undefined;
}

@ApiTags('Billing administration')
@Controller('api/v1/billing/beta')
@UseAuth('admin-key')
// An operator's pace, per client IP (wrong keys are counted apart, by the admin-key guard).
@RateLimit({ bucket: 'beta-admin', limit: 60, windowSeconds: 60, storeOutage: 'fail-open' })
@ApiExtraModels(BetaAccessByUserIdDto, BetaAccessByEmailDto)
export class BetaAccessController {
  constructor(private readonly betaAccess: BetaAccessService) {}

  @Get()
  @ApiOperation({
    operationId: 'listBetaGrants',
    summary: 'List lifetime beta grants with their audit entries',
    description:
      'Every account that holds or held lifetime beta: its id, e-mail, whether it holds beta now and the audit entries of the admin grant and ' +
      `revoke calls (newest first, at most ${BETA_GRANTS_PAGE.historyPerAccount}). Newest grant first, cursor-paged (\`limit\` 1..${BETA_GRANTS_PAGE.maxLimit}, ` +
      `default ${BETA_GRANTS_PAGE.defaultLimit}; \`nextCursor\` until the end). ${ADMIN_KEY_LIMIT}`,
  })
  @ApiEnvelope(BetaGrantPageDto)
  @ApiErrors(ErrorCode.ADMIN_AUTH_REQUIRED, ErrorCode.VALIDATION_ERROR, ErrorCode.RATE_LIMITED, ErrorCode.SERVICE_UNAVAILABLE)
  list(@Query() query: ListBetaGrantsQuery): Promise<BetaGrantPageDto> {
    return this.betaAccess.list(query);
  }

  @Post('grant')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'grantBetaAccess',
    summary: 'Grant lifetime beta access (API access without a subscription)',
    description: `Give exactly one of userId or email. Granting again is harmless. Every call is audit-logged. ${ADMIN_KEY_LIMIT}`,
  })
  @ApiBody(BETA_ACCESS_BODY)
  @ApiEnvelope(BetaAccessResultDto)
  @ApiErrors(ErrorCode.ADMIN_AUTH_REQUIRED, ErrorCode.USER_NOT_FOUND, ErrorCode.RATE_LIMITED, ErrorCode.SERVICE_UNAVAILABLE)
  grant(@Body() body: BetaAccessRequestDto, @Req() request: Request): Promise<BetaAccessResultDto> {
    return this.betaAccess.grant(body, requestIdOf(request));
  }

  @Post('revoke')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'revokeBetaAccess',
    summary: 'Revoke lifetime beta access',
    description: `Give exactly one of userId or email. A paid subscription, if any, is not affected. Audit-logged. ${ADMIN_KEY_LIMIT}`,
  })
  @ApiBody(BETA_ACCESS_BODY)
  @ApiEnvelope(BetaAccessResultDto)
  @ApiErrors(ErrorCode.ADMIN_AUTH_REQUIRED, ErrorCode.USER_NOT_FOUND, ErrorCode.BETA_ACCESS_NOT_FOUND, ErrorCode.RATE_LIMITED, ErrorCode.SERVICE_UNAVAILABLE)
  revoke(@Body() body: BetaAccessRequestDto, @Req() request: Request): Promise<BetaAccessResultDto> {
    return this.betaAccess.revoke(body, requestIdOf(request));
  }
}
