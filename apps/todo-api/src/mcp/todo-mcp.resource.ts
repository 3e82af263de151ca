import { mcpProtectedResource, type OAuthResourceDeclaration, type ProtectedResource } from '#libs/identity';
import type { AppConfig } from '#libs/config';

/** Scopes of the todo MCP resource: the REST model's read and write. */
const TODO_SCOPES = { read: 'todos:read', write: 'todos:write' } as const;

/** The todo MCP endpoint as a resource of the authorization server. */
export function todoMcpResource(config: AppConfig): ProtectedResource {
  return mcpProtectedResource(config.publicBaseUrl, config, [TODO_SCOPES.read, TODO_SCOPES.write], 'Todo MCP');
}

/** What todo-api declares to the authorization server it mounts: its MCP resource and the consent page's words for its scopes. */
export const TODO_MCP_OAUTH_RESOURCE: OAuthResourceDeclaration = {
  resource: todoMcpResource,
  scopeLabels: {
    [TODO_SCOPES.read]: 'Read your todos',
    [TODO_SCOPES.write]: 'Create, change and delete your todos',
  },
};
