import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { JwtAuthGuard, presentAccessToken, type VerifiedAccessToken } from '#libs/identity';
import { AppException, ErrorCode, presentedCredential, rateLimitOptionsFor, setPrincipal, type Principal, type RateLimitCounting } from '#libs/common';
import { API_KEY_HEADER } from './api-access.schemes.js';
import { API_KEY_PREFIX } from './api-key.format.js';
import { ApiKeyAccessRepository } from './api-key-access.repository.js';
import { ApiKeyAuthGuard } from './api-key-auth.guard.js';

/** What a re-check of a request's credential found: still working (until `expiresAt`, null: no end of its own), or not. */
export type CredentialStatus = { live: true; expiresAt: Date | null } | { live: false; code: ErrorCode };

/** The answers that mean "this credential no longer gets in"; anything else (an outage) is not a verdict. */
const CREDENTIAL_REFUSALS: ReadonlySet<ErrorCode> = new Set([
  ErrorCode.AUTH_REQUIRED,
  ErrorCode.INVALID_API_KEY,
  ErrorCode.API_KEY_REQUIRED,
  ErrorCode.SUBSCRIPTION_REQUIRED,
]);

const credentialExpiries = new WeakMap<Request, Date | null>();

/** When the credential the guard accepted for this request stops working by itself (JWT `exp`, key `expiresAt`); null: never. */
export function credentialExpiryOf(request: Request): Date | null {
  return credentialExpiries.get(request) ?? null;
}

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
    private readonly jwtAuth: JwtAuthGuard,
    private readonly access: ApiKeyAccessRepository,
    private readonly reflector: Reflector,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<Request>();
    const { principal, expiresAt } = await this.authenticate(request, { request, limit: rateLimitOptionsFor(this.reflector, context) });
    setPrincipal(request, principal);
    credentialExpiries.set(request, expiresAt);
    return true;
  }

  /**
   * Asks again, by the same rules, whether the credential this request was let in with still
   * works: a response that stays open (the realtime stream) must end with its credential
   * (revoked, rotated, session signed out, access lapsed, account gone, token expired).
   * Not counted against any rate limit. An outage throws: it is no verdict on the credential.
   */
  async recheck(request: Request): Promise<CredentialStatus> {
    try {
      return { live: true, expiresAt: (await this.authenticate(request)).expiresAt };
    } catch (error) {
      if (error instanceof AppException && CREDENTIAL_REFUSALS.has(error.code)) return { live: false, code: error.code };
      throw error;
    }
  }

  private async authenticate(request: Request, counting?: RateLimitCounting): Promise<{ principal: Principal; expiresAt: Date | null }> {
    const queryToken = typeof request.query?.access_token === 'string' ? request.query.access_token.trim() : undefined;
    const credential = presentedCredential(request, API_KEY_HEADER) ?? (queryToken || undefined);
    if (!credential) throw new AppException(ErrorCode.AUTH_REQUIRED, 'An API key or access token is required');
    return credential.startsWith(API_KEY_PREFIX) ? this.apiKeys.verify(credential, counting) : this.authenticateJwt(request, credential);
  }

  /** The access token goes through the JWT routes' own check (JwtAuthGuard's passport strategy), then the API-access rule. */
  private async authenticateJwt(request: Request, token: string): Promise<{ principal: Principal; expiresAt: Date | null }> {
    presentAccessToken(request, token);
    let verified: VerifiedAccessToken;
    try {
      verified = await this.jwtAuth.verify(request);
    } catch (error) {
      if (error instanceof AppException && error.code === ErrorCode.AUTH_REQUIRED) throw new AppException(ErrorCode.AUTH_REQUIRED, 'A valid access token or API key is required');
      throw error;
    }
    if (!(await this.access.userHasApiAccess(verified.principal.userId))) throw new AppException(ErrorCode.SUBSCRIPTION_REQUIRED, 'An active API subscription or lifetime beta access is required');
    return verified;
  }
}
