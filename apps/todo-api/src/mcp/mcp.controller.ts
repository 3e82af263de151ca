import { Controller, HttpCode, Post, Req, Res, UseFilters } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { AcceptsBody, ANY_MEDIA_TYPE, CurrentPrincipal, RateLimit, RawResponse, UseAuth } from '#libs/common';
import { TODO_RATE_LIMIT } from '../todos/todo-rate-limit.js';
import { ApiMcpEndpoint, McpErrorFilter } from '#libs/mcp';
import type { TodoMcpPrincipal } from './todo-mcp-tool.registry.js';
import { TodoMcpEndpoint } from './todo-mcp.endpoint.js';

@ApiTags('MCP')
@Controller('api/v1/mcp')
@UseFilters(McpErrorFilter)
export class McpController {
  constructor(private readonly mcp: TodoMcpEndpoint) {}

  @Post()
  // The MCP transport answers a non-JSON body itself, with its JSON-RPC 415.
  @AcceptsBody(ANY_MEDIA_TYPE)
  @HttpCode(200)
  @UseAuth('todo-mcp')
  @RateLimit(TODO_RATE_LIMIT)
  @RawResponse()
  @ApiOperation({
    operationId: 'mcp',
    summary: 'MCP endpoint for AI agents (JSON-RPC 2.0, stateless streamable HTTP)',
    description:
      'One JSON-RPC message per POST (initialize, ping, tools/list, tools/call); no session is kept. Send ' +
      '`Accept: application/json, text/event-stream`. Tools: list_todos, get_todo, list_categories, create_todo, update_todo, delete_todo, create_todos and update_todos (up to 50, all or none), list_webhooks, create_webhook, delete_webhook and list_webhook_deliveries, ' +
      'with the REST rules; each announces an outputSchema and annotations, results carry `structuredContent` and a JSON text block; ' +
      'list_todos pages with `cursor`. Tool errors are results with `isError: true` and the REST error code in the text. Same API key, ' +
      'subscription and rate limit (shared with the todo routes) as REST; or an OAuth 2.1 access token issued for this endpoint ' +
      '(scopes todos:read, todos:write; its own rate-limit budget per grant). A 401 carries `WWW-Authenticate: Bearer resource_metadata=…, scope=…` ' +
      '(RFC 9728 metadata at `/.well-known/oauth-protected-resource/api/v1/mcp`). Failures before JSON-RPC (401, 402, 403 Origin not allowed, 429) ' +
      'keep their HTTP status and answer with a JSON-RPC error object (the request id echoed, message `CODE: message`, `error.data.code` ' +
      'the REST code, `error.data.details` as in the REST envelope), instead of the REST envelope. ' +
      'Browser requests must come from an allowed Origin. GET and DELETE answer 405 (no server-initiated streams or sessions).',
  })
  @ApiMcpEndpoint(
    { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_todos', arguments: { limit: 10 } } },
    { content: [{ type: 'text', text: '{"todos":[],"nextCursor":null}' }], structuredContent: { todos: [], nextCursor: null } },
    [
      { status: 401, description: 'API_KEY_REQUIRED, INVALID_API_KEY or INVALID_TOKEN (OAuth) in error.data.code; WWW-Authenticate names the resource metadata and scopes', example: [-32001, 'INVALID_API_KEY: The API key is invalid, revoked or expired', 'INVALID_API_KEY'] },
      { status: 402, description: 'SUBSCRIPTION_REQUIRED in error.data.code', example: [-32002, 'SUBSCRIPTION_REQUIRED: An active subscription or beta access is required', 'SUBSCRIPTION_REQUIRED'] },
      { status: 403, description: 'FORBIDDEN in error.data.code: Origin not allowed (DNS-rebinding protection)', example: [-32003, 'FORBIDDEN: Requests from this Origin are not allowed on the MCP endpoint', 'FORBIDDEN'] },
      { status: 429, description: 'RATE_LIMITED in error.data.code (shared with the todo routes)', example: [-32029, 'RATE_LIMITED: Too many requests; retry in 42 s', 'RATE_LIMITED'] },
      { status: 500, description: 'INTERNAL_ERROR in error.data.code', example: [-32603, 'INTERNAL_ERROR: An unexpected error occurred', 'INTERNAL_ERROR'] },
    ],
  )
  handle(@Req() request: Request, @Res() response: Response, @CurrentPrincipal() principal: TodoMcpPrincipal): Promise<void> {
    return this.mcp.serve(request, response, principal);
  }
}
