import { Controller, HttpCode, Inject, Post, Req, Res, UseFilters } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { CurrentPrincipal, RateLimit, RawResponse, UseAuth } from '#libs/common';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { ApiMcpEndpoint, assertAllowedMcpOrigin, mcpAllowedOrigins, serveStatelessMcp } from '#libs/mcp';
import { EXPORT_TOKEN_RATE_LIMIT } from '../token-auth/export-rate-limit.js';
import type { FeedbackTokenPrincipal } from '../token-auth/feedback-token.authenticator.js';
import { FeedbackMcpServerFactory } from './feedback-mcp.server.js';
import { McpHttpErrorFilter } from './mcp-http-error.filter.js';

@ApiTags('MCP')
@Controller('api/v1/mcp')
export class McpController {
  private readonly allowedOrigins: string[];

  constructor(
    private readonly servers: FeedbackMcpServerFactory,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.allowedOrigins = mcpAllowedOrigins(config.feedbackPublicBaseUrl, config.corsOrigins);
  }

  @Post()
  @HttpCode(200)
  @UseAuth('feedback-token')
  @RateLimit(EXPORT_TOKEN_RATE_LIMIT)
  @RawResponse()
  @UseFilters(McpHttpErrorFilter)
  @ApiOperation({
    operationId: 'mcp',
    summary: 'MCP server (JSON-RPC 2.0 over stateless streamable HTTP)',
    description:
      'One JSON-RPC message per POST (initialize, ping, tools/list, tools/call); send `Accept: application/json, text/event-stream`. ' +
      'Tools: list_feedback (sk_, wk_), update_feedback_status (wk_), list_portfolio_feedback (ok_), and the question-batch tools. ' +
      'A tool called with a token of the wrong kind returns isError with INVALID_TOKEN. A missing or invalid token is HTTP 401 with a JSON-RPC error body. ' +
      'Shares the 60 requests/minute budget of the token.',
  })
  @ApiMcpEndpoint(
    { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_feedback', arguments: { limit: 50 } } },
    {
      content: [{ type: 'text', text: '{"feedback":[],"nextCursor":"eyJ2IjoxfQ.c2ln","hasMore":false}' }],
      structuredContent: { feedback: [], nextCursor: 'eyJ2IjoxfQ.c2ln', hasMore: false },
    },
    [
      { status: 401, description: 'INVALID_TOKEN in error.data.code: no token, or an unknown or rotated one', example: [-32001, 'INVALID_TOKEN: The token is invalid or expired', 'INVALID_TOKEN'] },
      { status: 403, description: 'FORBIDDEN in error.data.code: Origin not allowed (DNS-rebinding protection)', example: [-32003, 'FORBIDDEN: Requests from this Origin are not allowed on the MCP endpoint', 'FORBIDDEN'] },
      { status: 429, description: 'RATE_LIMITED in error.data.code (the token’s budget, shared with its REST routes)', example: [-32029, 'RATE_LIMITED: Too many requests; retry in 42 s', 'RATE_LIMITED'] },
      { status: 500, description: 'INTERNAL_ERROR in error.data.code', example: [-32000, 'INTERNAL_ERROR: An unexpected error occurred', 'INTERNAL_ERROR'] },
    ],
  )
  async handle(@Req() request: Request, @Res() response: Response, @CurrentPrincipal() principal: FeedbackTokenPrincipal): Promise<void> {
    assertAllowedMcpOrigin(request, this.allowedOrigins);
    await serveStatelessMcp(request, response, () => this.servers.create(principal));
  }
}
