import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { bearerTokenOf } from '#libs/common';
import { JwtAuthGuard } from '#libs/identity';
import { FeedbackTokenAuthenticator } from './feedback-token.authenticator.js';

/** An export token's shape (sk_, wk_, ok_): such a bearer is checked as one, anything else as an access token. */
const EXPORT_TOKEN_PREFIX = /^(sk|wk|ok)_/;

/**
 * Scheme 'site-write-or-jwt': a site's management routes that a deploy script (the site write token, wk_) and its
 * signed-in owner (an access token) both use. A wk_ token sets the site principal (a read or portfolio token is
 * 401 INVALID_TOKEN), an access token the user principal (401 AUTH_REQUIRED when invalid). Which site the route
 * names is checked by the feature (another site's token is answered as a missing site).
 */
@Injectable()
export class SiteWriteTokenOrJwtGuard implements CanActivate {
  constructor(
    private readonly authenticator: FeedbackTokenAuthenticator,
    private readonly jwt: JwtAuthGuard,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const token = bearerTokenOf(context.switchToHttp().getRequest<Request>());
    if (token !== undefined && EXPORT_TOKEN_PREFIX.test(token)) return this.authenticator.authenticateRequest(context, ['write']);
    return this.jwt.canActivate(context);
  }
}
