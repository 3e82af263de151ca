import { mcpProtectedResource, type ProtectedResource } from '#libs/identity';
import type { AppConfig } from '#libs/config';

/** Scopes of the feedback MCP resource: every site of the account, read or write, and the portfolio (read). */
export const FEEDBACK_SCOPES = { read: 'feedback:read', write: 'feedback:write', portfolio: 'portfolio:read' } as const;

/** The feedback MCP endpoint as a resource of the todo service's authorization server. */
export function feedbackMcpResource(config: AppConfig): ProtectedResource {
  return mcpProtectedResource(config.feedbackPublicBaseUrl, config, [FEEDBACK_SCOPES.read, FEEDBACK_SCOPES.write, FEEDBACK_SCOPES.portfolio], 'Feedback MCP');
}
