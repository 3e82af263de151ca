import { Injectable } from '@nestjs/common';
import { z } from 'zod';
import { AppException, ErrorCode, UUID_PATTERN, validationException } from '#libs/common';
import { McpToolRegistry, type McpTool } from '#libs/mcp';
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
 * an OAuth token the same on its chosen sites (feedback:read, feedback:write) and portfolio:read.
 */
function feedbackMcpScopesOf(principal: FeedbackMcpPrincipal): readonly FeedbackMcpScope[] {
  if (principal.kind === 'portfolio') return ['portfolio'];
  if (principal.kind === 'site') return principal.scope === 'write' ? ['read', 'write'] : ['read'];
  const held: FeedbackMcpScope[] = [];
  if (principal.sites.length > 0) held.push('read');
  if (principal.sites.some((site) => site.scope === 'write')) held.push('write');
  if (principal.scopes.includes(FEEDBACK_SCOPES.portfolio)) held.push('portfolio');
  return held;
}

/** The sites a caller may act on: a site token's own, or the sites an OAuth token was granted. */
export function sitesOf(principal: FeedbackMcpPrincipal): SiteAccess[] {
  if (principal.kind === 'site') return [{ ownerId: principal.ownerId, siteId: principal.siteId, scope: principal.scope }];
  return principal.kind === 'oauth' ? principal.sites : [];
}

/**
 * The site a tool acts on: the one the caller may use, or, when an OAuth grant holds several, the
 * one the `siteId` argument names. A site the caller may not use is NOT_FOUND, as on REST.
 */
function siteAccessOf(principal: FeedbackMcpPrincipal, siteId?: string): SiteAccess {
  const sites = sitesOf(principal);
  if (sites.length === 0) throw new AppException(ErrorCode.INVALID_TOKEN, 'This tool needs a site token or an OAuth token granted for a site');
  if (siteId === undefined) {
    if (sites.length === 1) return sites[0];
    throw validationException([{ field: 'siteId', messages: ['siteId is required: this grant holds several sites (list_sites names them)'] }]);
  }
  const site = sites.find((candidate) => candidate.siteId === siteId);
  if (!site) throw new AppException(ErrorCode.NOT_FOUND, 'No such site');
  return site;
}

/** The argument every site tool takes: which of the grant's sites (needed only when it holds several). */
const siteIdArgument = z
  .string()
  .max(36, { abort: true, error: 'must be a UUID' })
  .regex(UUID_PATTERN, 'must be a UUID')
  .optional()
  .describe('The site to act on (uuid, from list_sites): needed only when an OAuth grant holds several sites; a site token acts on its own site');

/** A tool that acts on one site: it is handed the site the caller may use instead of the caller. */
export type McpSiteTool<Input extends z.ZodObject, Output extends z.ZodObject> = Omit<McpTool<FeedbackMcpPrincipal, FeedbackMcpScope, Input, Output>, 'run'> & {
  run(site: SiteAccess, args: z.output<Input>): Promise<z.input<Output>>;
};

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

  /** Registers a tool that acts on one site: it gains the `siteId` argument, and `run` gets the site it resolves to. */
  registerForSite<Input extends z.ZodObject, Output extends z.ZodObject>({ run, input, ...tool }: McpSiteTool<Input, Output>): void {
    this.register({
      ...tool,
      input: input.extend({ siteId: siteIdArgument }),
      run: async (principal, { siteId, ...args }) => run(siteAccessOf(principal, siteId as string | undefined), args as z.output<Input>),
    });
  }
}
