import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { FeedbackTokenAuthenticator } from './feedback-token.authenticator.js';

/**
 * Scheme 'site-read': a site read (sk_) or write (wk_) token. Sets the principal
 * `{kind: 'site', siteId, ownerId, scope, tokenBudget}`; anything else is 401 INVALID_TOKEN.
 */
@Injectable()
export class SiteReadTokenGuard implements CanActivate {
  constructor(private readonly authenticator: FeedbackTokenAuthenticator) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    return this.authenticator.authenticateRequest(context, ['read', 'write']);
  }
}

/** Scheme 'site-write': only the site write token (wk_); a read token is 401 INVALID_TOKEN. */
@Injectable()
export class SiteWriteTokenGuard implements CanActivate {
  constructor(private readonly authenticator: FeedbackTokenAuthenticator) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    return this.authenticator.authenticateRequest(context, ['write']);
  }
}

/** Scheme 'feedback-token' (the MCP endpoint): any export token; each tool checks its own scope. */
@Injectable()
export class AnyFeedbackTokenGuard implements CanActivate {
  constructor(private readonly authenticator: FeedbackTokenAuthenticator) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    return this.authenticator.authenticateRequest(context, ['read', 'write', 'portfolio']);
  }
}
