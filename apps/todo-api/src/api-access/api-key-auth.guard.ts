import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { AppException, ErrorCode, lookUpCounting, rateLimitOptionsFor, setPrincipal, type PrincipalOf, type RateLimitCounting } from '#libs/common';
import { API_KEY_HEADER, apiKeyPrincipal } from './api-access.schemes.js';
import { API_KEY_PREFIX, hashApiKey, isWellFormedApiKey } from './api-key.format.js';
import { ApiKeyAccessRepository } from './api-key-access.repository.js';
import { hasApiAccess, isLiveApiKey } from './subscription-access.js';

type ApiKeyPrincipal = PrincipalOf<'api-key'>;

/** The API key of a request: `X-API-Key`, else `Authorization: Bearer`. */
export function extractApiKey(request: Request): string | undefined {
  const header = request.headers[API_KEY_HEADER];
  if (typeof header === 'string' && header.trim() !== '') return header.trim();
  const authorization = request.headers.authorization;
  if (typeof authorization === 'string') {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (match) return match[1];
  }
  return undefined;
}

/** A JWT (three base64url parts, a JSON header): someone sent their access token to an API-key route. */
function looksLikeJwt(credential: string): boolean {
  return /^eyJ[\w-]*\.[\w-]*\.[\w-]*$/.test(credential);
}

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
    const key = extractApiKey(request);
    if (!key) throw new AppException(ErrorCode.API_KEY_REQUIRED, 'An API key is required (Authorization: Bearer <key> or X-API-Key)');
    setPrincipal(request, await this.authenticate(key, { request, limit: rateLimitOptionsFor(this.reflector, context) }));
    return true;
  }

  /**
   * With `counting`, the request is counted against the route's rate limit in the same
   * statement as the key lookup (RateLimitGuard then uses that count).
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
    const hash = hashApiKey(key);
    const row = await lookUpCounting(
      counting,
      () => this.access.findByHash(hash),
      (limit) => this.access.findByHashCountingHit(hash, limit),
    );
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
