import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { AppException, ErrorCode, looksLikeJwt, presentedCredential, rateLimitOptionsFor, setPrincipal, type PrincipalOf, type RateLimitCounting } from '#libs/common';
import { API_KEY_HEADER, apiKeyPrincipal } from './api-access.schemes.js';
import { API_KEY_PREFIX, hashApiKey, isWellFormedApiKey } from './api-key.format.js';
import { ApiKeyAccessRepository } from './api-key-access.repository.js';
import { hasApiAccess, isLiveApiKey } from './subscription-access.js';

type ApiKeyPrincipal = PrincipalOf<'api-key'>;

/**
 * API-key authentication for todos, the realtime stream and MCP: 401 API_KEY_REQUIRED
 * without a key, 401 INVALID_API_KEY for an unknown, revoked, expired or malformed one
 * (a JWT included), 402 SUBSCRIPTION_REQUIRED when the owner's access has lapsed.
 */
@Injectable()
export class ApiKeyAuthGuard implements CanActivate {
  constructor(
    private readonly access: ApiKeyAccessRepository,
    private readonly reflector: Reflector,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<Request>();
    const key = presentedCredential(request, API_KEY_HEADER);
    if (!key) throw new AppException(ErrorCode.API_KEY_REQUIRED, 'An API key is required (Authorization: Bearer <key> or X-API-Key)');
    setPrincipal(request, await this.authenticate(key, { request, limit: rateLimitOptionsFor(this.reflector, context) }));
    return true;
  }

  /**
   * With `counting`, the key's lookup also counts the request against the route's rate limit
   * where it can (RateLimitGuard then uses that count).
   */
  async authenticate(key: string, counting?: RateLimitCounting): Promise<ApiKeyPrincipal> {
    return (await this.verify(key, counting)).principal;
  }

  /** authenticate, also answering when the key expires by itself (null: never). */
  async verify(key: string, counting?: RateLimitCounting): Promise<{ principal: ApiKeyPrincipal; expiresAt: Date | null }> {
    if (!isWellFormedApiKey(key)) {
      if (looksLikeJwt(key)) {
        throw new AppException(
          ErrorCode.INVALID_API_KEY,
          'This route takes an API key (tdk_…), not an access token: create a key with POST /api/v1/auth/api-keys and send it as Authorization: Bearer <key> or X-API-Key',
        );
      }
      throw new AppException(ErrorCode.INVALID_API_KEY, `The API key is malformed: API keys start with ${API_KEY_PREFIX} (Authorization: Bearer <key> or X-API-Key)`);
    }
    const row = await this.access.findByHash(hashApiKey(key), counting);
    const now = new Date();
    if (!row || !isLiveApiKey(row, now)) {
      throw new AppException(ErrorCode.INVALID_API_KEY, 'The API key is invalid, revoked or expired');
    }
    if (!hasApiAccess({ status: row.subscriptionStatus ?? 'none', isBetaLifetime: row.isBetaLifetime })) {
      throw new AppException(ErrorCode.SUBSCRIPTION_REQUIRED, 'An active API subscription or lifetime beta access is required');
    }
    this.access.touchLastUsed(row, now);
    return { principal: apiKeyPrincipal(row.userId, row.apiKeyId), expiresAt: row.expiresAt ? new Date(row.expiresAt) : null };
  }
}
