import type { OAuthResourceDeclaration } from '#libs/identity';
import { FeedbackSiteConsentRepository } from './feedback-site-consent.repository.js';
import { FEEDBACK_SCOPES, feedbackMcpResource } from './feedback-mcp.resource.js';

/**
 * What feedback-export declares to the authorization server (which todo-api mounts): its MCP
 * resource, the consent page's words for its scopes, and the site its site scopes hold for,
 * chosen on that page (FeedbackSiteConsentRepository reads the account’s sites: one database).
 */
export const FEEDBACK_MCP_OAUTH_RESOURCE: OAuthResourceDeclaration = {
  resource: feedbackMcpResource,
  scopeLabels: {
    [FEEDBACK_SCOPES.read]: 'Read the feedback and question batches of one of your sites',
    [FEEDBACK_SCOPES.write]: 'Triage feedback and send question batches on that site',
    [FEEDBACK_SCOPES.portfolio]: 'Read the feedback of all your sites',
  },
  consentChoice: FeedbackSiteConsentRepository,
};
