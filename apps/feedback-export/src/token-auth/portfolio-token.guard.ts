import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { FeedbackTokenAuthenticator } from './feedback-token.authenticator.js';

/**
 * Scheme 'portfolio': only the account portfolio token (ok_). Sets the principal
 * `{kind: 'portfolio', ownerId, tokenBudget}`; a site token is 401 INVALID_TOKEN.
 */
@Injectable()
export class PortfolioTokenGuard implements CanActivate {
  constructor(private readonly authenticator: FeedbackTokenAuthenticator) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    return this.authenticator.authenticateRequest(context, ['portfolio']);
  }
}
