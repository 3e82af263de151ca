import { Body, Controller, Delete, Get, HttpCode, Param, Post, UseGuards } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { ApiEnvelope, ApiErrors, CurrentPrincipal, CurrentUserId, ErrorCode, RateLimit, UseAuth, UUID_PARAM, type PrincipalOf, type RateLimitOptions } from '#libs/common';
import { ActiveAccessGuard } from './active-access.guard.js';
import { ApiKeysService, MAX_ACTIVE_API_KEYS } from './api-keys.service.js';
import { ApiKeyListDto, ApiKeyRevokedDto, ApiKeySecretDto, CreateApiKeyDto, CurrentApiKeyDto, RotateApiKeyDto } from './dto/api-key.dto.js';

/** Issuing key secrets (create, rotate): a person's pace, per account. */
const API_KEY_ISSUE_RATE_LIMIT: RateLimitOptions = { bucket: 'api-key-issue', limit: 30, windowSeconds: 3600, storeOutage: 'fail-closed' };

const MANAGEMENT_ERRORS = [ErrorCode.AUTH_REQUIRED, ErrorCode.SUBSCRIPTION_REQUIRED] as const;

@ApiTags('API keys')
@Controller('api/v1/auth/api-keys')
export class ApiKeysController {
  constructor(private readonly apiKeys: ApiKeysService) {}

  @Get()
  @UseAuth('jwt')
  @UseGuards(ActiveAccessGuard)
  @ApiOperation({ operationId: 'listApiKeys', summary: 'List the account’s API keys (never the secrets)' })
  @ApiEnvelope(ApiKeyListDto)
  @ApiErrors(...MANAGEMENT_ERRORS)
  list(@CurrentUserId() userId: string): Promise<ApiKeyListDto> {
    return this.apiKeys.list(userId);
  }

  @Post()
  @UseAuth('jwt')
  @UseGuards(ActiveAccessGuard)
  @RateLimit(API_KEY_ISSUE_RATE_LIMIT)
  @ApiOperation({
    operationId: 'createApiKey',
    summary: 'Create an API key',
    description: `The full key (\`apiKey\`) is returned only in this answer. Give at most one of expiresAt or expiresInDays; without either the key does not expire. An account holds at most ${MAX_ACTIVE_API_KEYS} keys that still work (not revoked, not expired): beyond, 409 CONFLICT.`,
  })
  @ApiEnvelope(ApiKeySecretDto, { status: 201 })
  @ApiErrors(...MANAGEMENT_ERRORS, ErrorCode.CONFLICT)
  create(@CurrentUserId() userId: string, @Body() body: CreateApiKeyDto): Promise<ApiKeySecretDto> {
    return this.apiKeys.create(userId, body);
  }

  @Get('current')
  @UseAuth('api-key')
  @ApiOperation({
    operationId: 'getCurrentApiKey',
    summary: 'The record of the API key this request is made with',
    description: 'Authenticated with the API key itself; a quick way to check that a key works and whose it is.',
  })
  @ApiEnvelope(CurrentApiKeyDto)
  @ApiErrors(ErrorCode.API_KEY_REQUIRED, ErrorCode.INVALID_API_KEY, ErrorCode.SUBSCRIPTION_REQUIRED)
  current(@CurrentPrincipal() principal: PrincipalOf<'api-key'>): Promise<CurrentApiKeyDto> {
    return this.apiKeys.current(principal.userId, principal.credentialId);
  }

  @Delete(':keyId')
  @UseAuth('jwt')
  @UseGuards(ActiveAccessGuard)
  // Revoking a key must work while the counters' store is down.
  @RateLimit({ bucket: 'api-key-revoke', limit: 60, windowSeconds: 60, storeOutage: 'fail-open' })
  @ApiOperation({ operationId: 'revokeApiKey', summary: 'Revoke an API key; it stops working at once' })
  @ApiParam({ name: 'keyId', format: 'uuid' })
  @ApiEnvelope(ApiKeyRevokedDto)
  @ApiErrors(...MANAGEMENT_ERRORS, ErrorCode.NOT_FOUND)
  revoke(@CurrentUserId() userId: string, @Param('keyId', UUID_PARAM) keyId: string): Promise<ApiKeyRevokedDto> {
    return this.apiKeys.revoke(userId, keyId);
  }

  @Post(':keyId/rotate')
  @HttpCode(200)
  @UseAuth('jwt')
  @UseGuards(ActiveAccessGuard)
  @RateLimit(API_KEY_ISSUE_RATE_LIMIT)
  @ApiOperation({
    operationId: 'rotateApiKey',
    summary: 'Give an API key a new secret',
    description:
      'Same record id and name; the previous secret stops working at once and the new full key is returned only now. ' +
      'Without expiresAt, expiresInDays or clearExpiry the current expiry is kept (an expired key needs a new one). ' +
      'A revoked key cannot be rotated (409 CONFLICT).',
  })
  @ApiParam({ name: 'keyId', format: 'uuid' })
  @ApiBody({ type: RotateApiKeyDto, required: false })
  @ApiEnvelope(ApiKeySecretDto)
  @ApiErrors(...MANAGEMENT_ERRORS, ErrorCode.NOT_FOUND, ErrorCode.CONFLICT)
  rotate(@CurrentUserId() userId: string, @Param('keyId', UUID_PARAM) keyId: string, @Body() body: RotateApiKeyDto): Promise<ApiKeySecretDto> {
    return this.apiKeys.rotate(userId, keyId, body);
  }
}
