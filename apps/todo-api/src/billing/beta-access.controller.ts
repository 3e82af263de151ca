import { Body, Controller, HttpCode, Post, Req } from '@nestjs/common';
import { ApiBody, ApiExtraModels, ApiOperation, ApiTags, getSchemaPath } from '@nestjs/swagger';
import type { Request } from 'express';
import { ApiEnvelope, ApiErrors, ErrorCode, UseAuth } from '#libs/common';
import { BetaAccessService } from './beta-access.service.js';
import { BetaAccessByEmailDto, BetaAccessByUserIdDto, BetaAccessRequestDto, BetaAccessResultDto } from './dto/beta-access.dto.js';

/** Exactly one of userId or email. */
const BETA_ACCESS_BODY = {
  schema: { oneOf: [{ $ref: getSchemaPath(BetaAccessByUserIdDto) }, { $ref: getSchemaPath(BetaAccessByEmailDto) }] },
  examples: {
    byUserId: { summary: 'By user id', value: { userId: '3b241101-e2bb-4255-8caf-4136c566a962' } },
    byEmail: { summary: 'By e-mail', value: { email: 'ada@example.com' } },
  },
};

function requestIdOf(request: Request): string | undefined {
  const id = (request as Request & { id?: unknown }).id;
  return typeof id === 'string' ? id : undefined;
}

@ApiTags('Billing administration')
@Controller('api/v1/billing/beta')
@UseAuth('admin-key')
@ApiExtraModels(BetaAccessByUserIdDto, BetaAccessByEmailDto)
export class BetaAccessController {
  constructor(private readonly betaAccess: BetaAccessService) {}

  @Post('grant')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'grantBetaAccess',
    summary: 'Grant lifetime beta access (API access without a subscription)',
    description: 'Give exactly one of userId or email. Granting again is harmless. Every call is audit-logged.',
  })
  @ApiBody(BETA_ACCESS_BODY)
  @ApiEnvelope(BetaAccessResultDto)
  @ApiErrors(ErrorCode.ADMIN_AUTH_REQUIRED, ErrorCode.USER_NOT_FOUND)
  grant(@Body() body: BetaAccessRequestDto, @Req() request: Request): Promise<BetaAccessResultDto> {
    return this.betaAccess.grant(body, requestIdOf(request));
  }

  @Post('revoke')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'revokeBetaAccess',
    summary: 'Revoke lifetime beta access',
    description: 'Give exactly one of userId or email. A paid subscription, if any, is not affected. Audit-logged.',
  })
  @ApiBody(BETA_ACCESS_BODY)
  @ApiEnvelope(BetaAccessResultDto)
  @ApiErrors(ErrorCode.ADMIN_AUTH_REQUIRED, ErrorCode.USER_NOT_FOUND, ErrorCode.BETA_ACCESS_NOT_FOUND)
  revoke(@Body() body: BetaAccessRequestDto, @Req() request: Request): Promise<BetaAccessResultDto> {
    return this.betaAccess.revoke(body, requestIdOf(request));
  }
}
