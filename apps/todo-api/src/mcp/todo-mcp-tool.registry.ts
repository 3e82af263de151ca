import { Injectable } from '@nestjs/common';
import { ErrorCode, type PrincipalOf } from '#libs/common';
import { McpToolRegistry } from '#libs/mcp';

/** The todo MCP scopes: the REST model's todos read and write. */
const TODO_MCP_SCOPES = ['todos:read', 'todos:write'] as const;
export type TodoMcpScope = (typeof TODO_MCP_SCOPES)[number];

/** Who calls the todo MCP endpoint (what its auth guard puts on the request): an API key, or an OAuth access token. */
export type TodoMcpPrincipal = PrincipalOf<'api-key'> | PrincipalOf<'oauth'>;

/** The scopes a caller holds: an API key may do everything the todo routes allow; an OAuth token what the user allowed. */
function todoMcpScopesOf(principal: TodoMcpPrincipal): readonly TodoMcpScope[] {
  if (principal.kind === 'api-key') return TODO_MCP_SCOPES;
  return TODO_MCP_SCOPES.filter((scope) => principal.scopes.includes(scope));
}

/** The tools of the todo MCP endpoint; feature modules register theirs (todos-mcp.tools.ts). */
@Injectable()
export class TodoMcpToolRegistry extends McpToolRegistry<TodoMcpPrincipal, TodoMcpScope> {
  constructor() {
    super({ scopesOf: todoMcpScopesOf, refusalCode: ErrorCode.FORBIDDEN, credentialFor: (scope) => `a credential with the ${scope} scope` });
  }
}
