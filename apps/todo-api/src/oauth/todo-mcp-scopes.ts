import { TODO_SCOPES } from '#libs/accounts';
import { AppException, ErrorCode, type PrincipalOf } from '#libs/common';

/** Who may call the todo MCP tools: an API key (everything), or an OAuth token by its scopes. */
export type TodoMcpPrincipal = PrincipalOf<'api-key'> | PrincipalOf<'oauth'>;

/** The tools that only read; every other tool writes and needs todos:write. */
const READ_TOOLS: ReadonlySet<string> = new Set(['list_todos', 'get_todo']);

/** The scope a tool needs from an OAuth token. */
export function scopeForTodoTool(name: string): string {
  return READ_TOOLS.has(name) ? TODO_SCOPES.read : TODO_SCOPES.write;
}

/** An API key may call every tool; an OAuth token the ones its scopes cover (todos:write includes reading). */
export function mayCallTodoTool(principal: TodoMcpPrincipal, name: string): boolean {
  if (principal.kind === 'api-key') return true;
  const needed = scopeForTodoTool(name);
  return principal.scopes.includes(needed) || (needed === TODO_SCOPES.read && principal.scopes.includes(TODO_SCOPES.write));
}

/** Refuses a tool the token's scopes do not cover, naming the scope needed (a tool error result, like REST's 403). */
export function assertMayCallTodoTool(principal: TodoMcpPrincipal, name: string): void {
  if (mayCallTodoTool(principal, name)) return;
  const scope = scopeForTodoTool(name);
  throw new AppException(ErrorCode.FORBIDDEN, `This token lacks the ${scope} scope needed by ${name}: connect again and allow ${scope}`, { requiredScope: scope });
}
