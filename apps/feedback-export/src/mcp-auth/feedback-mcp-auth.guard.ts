import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { feedbackMcpResource, withBearerChallenge, type ProtectedResource } from '#libs/accounts';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { AnyFeedbackTokenGuard } from '../token-auth/site-token.guard.js';

/**
 * Scheme 'feedback-mcp': any feedback export token (each tool checks its own scope), as before;
 * every 401 now carries the `WWW-Authenticate` challenge pointing at the endpoint's RFC 9728
 * metadata. OAuth access tokens for other resources (the todo MCP's) are refused here.
 */
@Injectable()
export class FeedbackMcpAuthGuard implements CanActivate {
  private readonly resource: ProtectedResource;

  constructor(
    private readonly feedbackTokens: AnyFeedbackTokenGuard,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.resource = feedbackMcpResource(config);
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    try {
      return await this.feedbackTokens.canActivate(context);
    } catch (error) {
      throw withBearerChallenge(error, this.resource);
    }
  }
}
