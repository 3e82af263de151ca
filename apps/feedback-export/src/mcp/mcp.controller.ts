import { Controller, HttpCode, Post, Req, Res, UseFilters } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { AcceptsBody, ANY_MEDIA_TYPE, CurrentPrincipal, RateLimit, RawResponse, UseAuth } from '#libs/common';
import { ApiMcpEndpoint, McpErrorFilter } from '#libs/mcp';
import { EXPORT_TOKEN_RATE_LIMIT } from '../token-auth/export-rate-limit.js';
import { FeedbackMcpEndpoint } from './feedback-mcp.endpoint.js';
import type { FeedbackMcpPrincipal } from './feedback-mcp-tool.registry.js';

@ApiTags('MCP')
@Controller('api/v1/mcp')
@UseFilters(McpErrorFilter)
export class McpController {
  constructor(private readonly mcp: FeedbackMcpEndpoint) {}

  @Post()
  // The MCP transport answers a non-JSON body itself, with its JSON-RPC 415.
  @AcceptsBody(ANY_MEDIA_TYPE)
  @HttpCode(200)
  @UseAuth('feedback-mcp')
  @RateLimit(EXPORT_TOKEN_RATE_LIMIT)
  @RawResponse()
  @ApiOperation({
    operationId: 'mcp',
    summary: 'MCP server (JSON-RPC 2.0 over stateless streamable HTTP)',
    description:
      'One JSON-RPC message per POST (initialize, ping, tools/list, tools/call); send `Accept: application/json, text/event-stream`. ' +
      'Tools: list_feedback, list_question_batches, get_question_batch (sk_, wk_); update_feedback_status, create_question_batch, update_question_batch, delete_question_batch, send_question_batch, get_share_link (wk_); ' +
      'list_portfolio_feedback (ok_). An OAuth access token issued for this endpoint acts like sk_ (feedback:read) or wk_ (feedback:write) on the one site ' +
      'the user chose, and like ok_ (portfolio:read). tools/list shows only the tools the token may call; list tools page with `cursor` (the nextCursor of the previous call). ' +
      'A tool called with a token of the wrong kind returns isError with INVALID_TOKEN and the scope it needs in `details.requiredScopes`. ' +
      'A missing, invalid, expired or revoked token, or an OAuth token for another resource, is HTTP 401 with a JSON-RPC error body (the request id echoed, message `CODE: message`, the REST code in error.data.code) ' +
      'and `WWW-Authenticate: Bearer resource_metadata=…, scope=…` (RFC 9728 metadata at `/.well-known/oauth-protected-resource/api/v1/mcp`). ' +
      'Shares the 60 requests/minute budget of the token (an OAuth token: of its grant).',
  })
  @ApiMcpEndpoint(
    { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_feedback', arguments: { limit: 50 } } },
    {
      content: [{ type: 'text', text: '{"feedback":[],"nextCursor":"eyJ2IjoxfQ.c2ln","hasMore":false}' }],
      structuredContent: { feedback: [], nextCursor: 'eyJ2IjoxfQ.c2ln', hasMore: false },
    },
    [
      { status: 401, description: 'INVALID_TOKEN in error.data.code: no token, an unknown or rotated one, or an OAuth token expired, revoked or for another resource; WWW-Authenticate names the resource metadata and scopes', example: [-32001, 'INVALID_TOKEN: The token is invalid or expired', 'INVALID_TOKEN'] },
      { status: 403, description: 'FORBIDDEN in error.data.code: Origin not allowed (DNS-rebinding protection)', example: [-32003, 'FORBIDDEN: Requests from this Origin are not allowed on the MCP endpoint', 'FORBIDDEN'] },
      { status: 429, description: 'RATE_LIMITED in error.data.code (the token’s budget, shared with its REST routes)', example: [-32029, 'RATE_LIMITED: Too many requests; retry in 42 s', 'RATE_LIMITED'] },
      { status: 500, description: 'INTERNAL_ERROR in error.data.code', example: [-32603, 'INTERNAL_ERROR: An unexpected error occurred', 'INTERNAL_ERROR'] },
    ],
  )
  handle(@Req() request: Request, @Res() response: Response, @CurrentPrincipal() principal: FeedbackMcpPrincipal): Promise<void> {
    return this.mcp.serve(request, response, principal);
  }
}
