import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { looksLikeJwt, OAuthAccessTokenVerifier, withBearerChallenge, type ProtectedResource } from '#libs/identity';
import { setPrincipal } from '#libs/common';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { extractBearerToken } from '../token-auth/feedback-token.authenticator.js';
import { AnyFeedbackTokenGuard } from '../token-auth/site-token.guard.js';
import { feedbackOAuthPrincipal } from './feedback-oauth-principal.js';
import { feedbackMcpResource } from './feedback-mcp.resource.js';

/**
 * Scheme 'feedback-mcp': any feedback export token (each tool checks its own scope), or an
 * OAuth access token issued for this resource by the todo service's authorization server
 * (the tools check its scopes and site alike). Tokens for other resources (the todo MCP's) are
 * refused; every 401 carries the `WWW-Authenticate` challenge pointing at the endpoint's
 * RFC 9728 metadata.
 */
@Injectable()
export class FeedbackMcpAuthGuard implements CanActivate {
  private readonly resource: ProtectedResource;

  constructor(
    private readonly feedbackTokens: AnyFeedbackTokenGuard,
    private readonly oauthTokens: OAuthAccessTokenVerifier,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.resource = feedbackMcpResource(config);
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    try {
      const request = context.switchToHttp().getRequest<Request>();
      const credential = extractBearerToken(request);
      if (!credential || !looksLikeJwt(credential)) return await this.feedbackTokens.canActivate(context);
      const { principal, authorizationDetails } = await this.oauthTokens.verifyWithDetails(credential, this.resource);
      setPrincipal(request, feedbackOAuthPrincipal(principal, authorizationDetails, this.resource));
      return true;
    } catch (error) {
      throw withBearerChallenge(error, this.resource);
    }
  }
}
