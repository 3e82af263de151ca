import { ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { OAuthAccessTokenVerifier, OAuthResourceGuard, type VerifiedOAuthAccess } from '#libs/identity';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { AnyFeedbackTokenGuard } from '../token-auth/site-token.guard.js';
import { feedbackOAuthPrincipal, type FeedbackOAuthPrincipal } from './feedback-oauth-principal.js';
import { feedbackMcpResource } from './feedback-mcp.resource.js';

/**
 * Scheme 'feedback-mcp': any feedback export token (each tool checks its own scope), or an
 * OAuth access token issued for this resource by the todo service's authorization server
 * (the tools check its scopes and site alike). Tokens for other resources (the todo MCP's) are
 * refused; every 401 carries the `WWW-Authenticate` challenge pointing at the endpoint's
 * RFC 9728 metadata (OAuthResourceGuard).
 */
@Injectable()
export class FeedbackMcpAuthGuard extends OAuthResourceGuard {
  constructor(
    private readonly feedbackTokens: AnyFeedbackTokenGuard,
    oauthTokens: OAuthAccessTokenVerifier,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    super(feedbackMcpResource(config), oauthTokens);
  }

  protected appCredential(context: ExecutionContext): Promise<boolean> {
    return this.feedbackTokens.canActivate(context);
  }

  protected principalOf({ principal, authorizationDetails }: VerifiedOAuthAccess): FeedbackOAuthPrincipal {
    return feedbackOAuthPrincipal(principal, authorizationDetails, this.resource);
  }
}
