import type { ProtectedResource } from '#libs/identity';
import type { PrincipalOf } from '#libs/common';
import type { SiteAccess } from '../token-auth/site-access.js';
import { FEEDBACK_SCOPES } from './feedback-mcp.resource.js';
import { feedbackSiteDetailOf } from './feedback-site-grant.js';

/**
 * An OAuth access token for the feedback MCP resource, as its tools see it: the account (the
 * owner of its sites), the one site the user chose on the consent page with the scope the
 * token holds on it (feedback:read acts like an sk_ token, feedback:write like a wk_ token), and
 * whether it may read the portfolio (portfolio:read, like an ok_ token). Its kind stays 'oauth',
 * so rate limits count it per grant (`oauth-grant:<id>`), like the todo MCP's tokens.
 */
export type FeedbackOAuthPrincipal = PrincipalOf<'oauth'> & { ownerId: string; site?: SiteAccess };

/** What a verified token allows on the feedback MCP resource (its scopes, and the site of its authorization details). */
export function feedbackOAuthPrincipal(principal: PrincipalOf<'oauth'>, authorizationDetails: unknown, resource: ProtectedResource): FeedbackOAuthPrincipal {
  const detail = feedbackSiteDetailOf(authorizationDetails, resource);
  const write = detail !== undefined && detail.actions.includes('write') && principal.scopes.includes(FEEDBACK_SCOPES.write);
  const read = detail !== undefined && (write || principal.scopes.includes(FEEDBACK_SCOPES.read));
  const site: SiteAccess | undefined = read ? { ownerId: principal.userId, siteId: detail.identifier, scope: write ? 'write' : 'read' } : undefined;
  return { ...principal, ownerId: principal.userId, site };
}
