import { ExecutionContext, Injectable } from '@nestjs/common';
import { AuthGuard } from '@nestjs/passport';
import type { Request } from 'express';
import { AppException, ErrorCode, setPrincipal, type PrincipalOf } from '#libs/common';
import { JwtStrategy, type AccessTokenInfo } from './jwt.strategy.js';

/** An access token the strategy accepted: whose it is, and when it expires. */
export interface VerifiedAccessToken {
  principal: PrincipalOf<'user'>;
  expiresAt: Date;
}

const verifiedTokens = new WeakMap<Request, VerifiedAccessToken>();

/**
 * JWT routes: 401 AUTH_REQUIRED for a missing, malformed, expired or revoked access token.
 * @nestjs/passport's AuthGuard on this app's `JwtStrategy`, by the name that strategy
 * registered under (one per app instance: see jwt.strategy.ts). A session lookup that cannot
 * run is thrown as it is (the global filter answers an outage), not taken for a bad token.
 */
@Injectable()
export class JwtAuthGuard extends AuthGuard() {
  constructor(strategy: JwtStrategy) {
    super({ defaultStrategy: strategy.name, session: false });
  }

  override async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<Request>();
    await super.canActivate(context);
    setPrincipal(request, verifiedTokenOf(request).principal);
    return true;
  }

  override handleRequest<TUser = PrincipalOf<'user'>>(error: unknown, principal: PrincipalOf<'user'> | false, info: AccessTokenInfo | undefined, context: ExecutionContext): TUser {
    if (error) throw error;
    if (!principal || !info) throw new AppException(ErrorCode.AUTH_REQUIRED, 'A valid access token is required');
    verifiedTokens.set(context.switchToHttp().getRequest<Request>(), { principal, expiresAt: info.expiresAt });
    return principal as TUser;
  }

  /**
   * The check alone, without making the token's owner the request's principal: for the realtime
   * stream's guard (which has its own rule still to apply) and its later re-checks of a stream's
   * credential (presentAccessToken names a token found outside the bearer header).
   */
  async verify(request: Request): Promise<VerifiedAccessToken> {
    await super.canActivate(httpContextOf(request));
    return verifiedTokenOf(request);
  }
}

/** What handleRequest recorded for the request that AuthGuard just let through. */
function verifiedTokenOf(request: Request): VerifiedAccessToken {
  const verified = verifiedTokens.get(request);
  if (!verified) throw new AppException(ErrorCode.AUTH_REQUIRED, 'A valid access token is required');
  return verified;
}

/** What AuthGuard reads of an execution context (the HTTP request and response), for a call made outside a route's guard chain. */
function httpContextOf(request: Request): ExecutionContext {
  const http = { getRequest: () => request, getResponse: () => request.res, getNext: () => request.next };
  return { switchToHttp: () => http, getType: () => 'http' } as unknown as ExecutionContext;
}
