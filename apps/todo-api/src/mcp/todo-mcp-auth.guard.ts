import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { looksLikeJwt, OAuthAccessTokenVerifier, withBearerChallenge, type ProtectedResource } from '#libs/identity';
import { AppException, ErrorCode, setPrincipal } from '#libs/common';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { ApiKeyAccessRepository } from '../api-access/api-key-access.repository.js';
import { ApiKeyAuthGuard, extractApiKey } from '../api-access/api-key-auth.guard.js';
import { todoMcpResource } from './todo-mcp.resource.js';

/**
 * Scheme 'todo-mcp': an API key (exactly as on the todo routes), or an OAuth access token issued
 * for the todo MCP resource. Either way the account needs API access (402), and every 401 carries
 * the `WWW-Authenticate` challenge that points an agent at the resource's metadata.
 */
@Injectable()
export class TodoMcpAuthGuard implements CanActivate {
  private readonly resource: ProtectedResource;

  constructor(
    private readonly apiKeys: ApiKeyAuthGuard,
    private readonly oauthTokens: OAuthAccessTokenVerifier,
    private readonly access: ApiKeyAccessRepository,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.resource = todoMcpResource(config);
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    try {
      const request = context.switchToHttp().getRequest<Request>();
      const credential = extractApiKey(request);
      if (!credential || !looksLikeJwt(credential)) return await this.apiKeys.canActivate(context);
      const principal = await this.oauthTokens.verify(credential, this.resource);
      if (!(await this.access.userHasApiAccess(principal.userId))) {
        throw new AppException(ErrorCode.SUBSCRIPTION_REQUIRED, 'An active API subscription or lifetime beta access is required');
      }
      setPrincipal(request, principal);
      return true;
    } catch (error) {
      throw withBearerChallenge(error, this.resource);
    }
  }
}
