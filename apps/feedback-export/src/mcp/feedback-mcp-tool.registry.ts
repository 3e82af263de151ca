import { Injectable } from '@nestjs/common';
import { AppException, ErrorCode } from '#libs/common';
import { McpToolRegistry } from '#libs/mcp';
import type { FeedbackOAuthPrincipal } from './feedback-oauth-principal.js';
import type { FeedbackTokenPrincipal, PortfolioPrincipal } from '../token-auth/feedback-token.authenticator.js';
import type { SiteAccess } from '../token-auth/site-access.js';
import { FEEDBACK_SCOPES } from './feedback-mcp.resource.js';

/** Who calls the feedback MCP endpoint: an export token, or an OAuth access token issued for it. */
export type FeedbackMcpPrincipal = FeedbackTokenPrincipal | FeedbackOAuthPrincipal;

/** The feedback MCP scopes, as REST: a site's read and write, and the account's portfolio read. */
export type FeedbackMcpScope = 'read' | 'write' | 'portfolio';

/**
 * The scopes a caller holds: sk_ reads its site, wk_ also writes it, ok_ reads the portfolio;
 * an OAuth token the same on its chosen site (feedback:read, feedback:write) and portfolio:read.
 */
export function feedbackMcpScopesOf(principal: FeedbackMcpPrincipal): readonly FeedbackMcpScope[] {
  if (principal.kind === 'portfolio') return ['portfolio'];
  if (principal.kind === 'site') return principal.scope === 'write' ? ['read', 'write'] : ['read'];
  const held: FeedbackMcpScope[] = [];
  if (principal.site) held.push(...(principal.site.scope === 'write' ? (['read', 'write'] as const) : (['read'] as const)));
  if (principal.scopes.includes(FEEDBACK_SCOPES.portfolio)) held.push('portfolio');
  return held;
}

/** The site a tool acts on: the site token's, or the site an OAuth token was granted (the registry checked the scope). */
export function siteAccessOf(principal: FeedbackMcpPrincipal): SiteAccess {
  const site = principal.kind === 'site' ? principal : principal.kind === 'oauth' ? principal.site : undefined;
  if (!site) throw new AppException(ErrorCode.INVALID_TOKEN, 'This tool needs a site token or an OAuth token granted for a site');
  return { ownerId: site.ownerId, siteId: site.siteId, scope: site.scope };
}

/** The account whose portfolio a tool reads. */
export function portfolioOf(principal: FeedbackMcpPrincipal): Pick<PortfolioPrincipal, 'ownerId'> {
  return { ownerId: principal.ownerId };
}

const CREDENTIALS: Record<FeedbackMcpScope, string> = {
  read: 'an sk_ or wk_ token or the OAuth scope feedback:read',
  write: 'a wk_ token or the OAuth scope feedback:write',
  portfolio: 'an ok_ token or the OAuth scope portfolio:read',
};

/**
 * The tools of the feedback MCP endpoint. Feature modules register theirs in onModuleInit
 * (feedback/feedback-mcp.tools.ts, questions/questions-mcp.tools.ts). A token of the wrong
 * kind gets INVALID_TOKEN, as on REST.
 */
@Injectable()
export class FeedbackMcpToolRegistry extends McpToolRegistry<FeedbackMcpPrincipal, FeedbackMcpScope> {
  constructor() {
    super({ scopesOf: feedbackMcpScopesOf, refusalCode: ErrorCode.INVALID_TOKEN, credentialFor: (scope) => CREDENTIALS[scope] });
  }
}
