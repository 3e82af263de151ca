import type { ProtectedResource } from '#libs/identity';
import type { PrincipalOf } from '#libs/common';
import type { SiteAccess } from '../token-auth/site-access.js';
import { FEEDBACK_SCOPES } from './feedback-mcp.resource.js';
import { feedbackSiteDetailsOf } from './feedback-site-grant.js';

/**
 * An OAuth access token for the feedback MCP resource, as its tools see it: the account (the
 * owner of its sites), the sites the user chose on the consent page with the scope the token
 * holds on each (feedback:read acts like an sk_ token, feedback:write like a wk_ token), and
 * whether it may read the portfolio (portfolio:read, like an ok_ token). Its kind stays 'oauth',
 * so rate limits count it per grant (`oauth-grant:<id>`), like the todo MCP's tokens.
 */
export type FeedbackOAuthPrincipal = PrincipalOf<'oauth'> & { ownerId: string; sites: SiteAccess[] };

/** What a verified token allows on the feedback MCP resource (its scopes, and the sites of its authorization details). */
export function feedbackOAuthPrincipal(principal: PrincipalOf<'oauth'>, authorizationDetails: unknown, resource: ProtectedResource): FeedbackOAuthPrincipal {
  const canWrite = principal.scopes.includes(FEEDBACK_SCOPES.write);
  const canRead = canWrite || principal.scopes.includes(FEEDBACK_SCOPES.read);
  const sites = canRead
    ? feedbackSiteDetailsOf(authorizationDetails, resource).map(
        (detail): SiteAccess => ({ ownerId: principal.userId, siteId: detail.identifier, scope: canWrite && detail.actions.includes('write') ? 'write' : 'read' }),
      )
    : [];
  return { ...principal, ownerId: principal.userId, sites };
}
