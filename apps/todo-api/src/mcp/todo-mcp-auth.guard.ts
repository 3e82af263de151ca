import { ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { OAuthAccessTokenVerifier, OAuthResourceGuard, type VerifiedOAuthAccess } from '#libs/identity';
import type { PrincipalOf } from '#libs/common';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { API_KEY_HEADER } from '../api-access/api-access.schemes.js';
import { ApiAccessService } from '../api-access/api-access.service.js';
import { ApiKeyAuthGuard } from '../api-access/api-key-auth.guard.js';
import { todoMcpResource } from './todo-mcp.resource.js';

/**
 * Scheme 'todo-mcp': an API key (exactly as on the todo routes), or an OAuth access token issued
 * for the todo MCP resource. Either way the account needs API access (402), and every 401 carries
 * the `WWW-Authenticate` challenge that points an agent at the resource's metadata (OAuthResourceGuard).
 */
@Injectable()
export class TodoMcpAuthGuard extends OAuthResourceGuard {
  constructor(
    private readonly apiKeys: ApiKeyAuthGuard,
    private readonly access: ApiAccessService,
    oauthTokens: OAuthAccessTokenVerifier,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    super(todoMcpResource(config), oauthTokens, API_KEY_HEADER);
  }

  protected appCredential(context: ExecutionContext): Promise<boolean> {
    return this.apiKeys.canActivate(context);
  }

  protected async principalOf({ principal }: VerifiedOAuthAccess): Promise<PrincipalOf<'oauth'>> {
    await this.access.requireApiAccess(principal.userId, 'An active API subscription or lifetime beta access is required');
    return principal;
  }
}
