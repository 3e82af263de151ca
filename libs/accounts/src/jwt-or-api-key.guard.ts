import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { JwtService } from '@nestjs/jwt';
import type { Request } from 'express';
import { AppException, ErrorCode, rateLimitOptionsFor, setPrincipal, type Principal } from '#libs/common';
import type { AccessTokenClaims } from './access-token.service.js';
import { API_KEY_PREFIX } from './api-key.format.js';
import { ApiKeyAccessRepository } from './api-key-access.repository.js';
import { ApiKeyAuthGuard, extractApiKey } from './api-key-auth.guard.js';
import { JwtStrategy } from './jwt.strategy.js';

/**
 * Routes a first-party web app and API clients both use (the realtime todo stream): an API
 * key (`X-API-Key` or bearer), an access token (bearer), or either one in the `access_token`
 * query parameter, for EventSource, which cannot send headers. The query string is never
 * logged (the logger strips it). Either way the account needs API access (402 otherwise).
 */
@Injectable()
export class JwtOrApiKeyGuard implements CanActivate {
  constructor(
    private readonly apiKeys: ApiKeyAuthGuard,
    private readonly jwt: JwtService,
    private readonly jwtStrategy: JwtStrategy,
    private readonly access: ApiKeyAccessRepository,
    private readonly reflector: Reflector,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<Request>();
    const queryToken = typeof request.query?.access_token === 'string' ? request.query.access_token.trim() : undefined;
    const credential = extractApiKey(request) ?? (queryToken || undefined);
    if (!credential) throw new AppException(ErrorCode.AUTH_REQUIRED, 'An API key or access token is required');
    const principal = credential.startsWith(API_KEY_PREFIX)
      ? await this.apiKeys.authenticate(credential, { request, limit: rateLimitOptionsFor(this.reflector, context) })
      : await this.authenticateJwt(credential);
    setPrincipal(request, principal);
    return true;
  }

  private async authenticateJwt(token: string): Promise<Principal> {
    let claims: Partial<AccessTokenClaims>;
    try {
      claims = await this.jwt.verifyAsync<AccessTokenClaims>(token, { algorithms: ['HS256'] });
    } catch {
      throw new AppException(ErrorCode.AUTH_REQUIRED, 'A valid access token or API key is required');
    }
    const principal = await this.jwtStrategy.validate(claims);
    if (!principal || principal.kind !== 'user') throw new AppException(ErrorCode.AUTH_REQUIRED, 'A valid access token or API key is required');
    if (!(await this.access.userHasApiAccess(principal.userId))) throw new AppException(ErrorCode.SUBSCRIPTION_REQUIRED, 'An active API subscription or lifetime beta access is required');
    return principal;
  }
}
