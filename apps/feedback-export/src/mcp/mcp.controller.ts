import { Controller, HttpCode, Inject, Post, Req, Res, UseFilters } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { ApiErrors, CurrentPrincipal, ErrorCode, RateLimit, RawResponse, UseAuth } from '#libs/common';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { assertAllowedMcpOrigin, mcpAllowedOrigins, serveStatelessMcp } from '#libs/mcp';
import { EXPORT_TOKEN_RATE_LIMIT } from '../sites/export-rate-limit.js';
import type { FeedbackTokenPrincipal } from '../sites/feedback-token.authenticator.js';
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
  @ApiBody({ schema: { type: 'object', description: 'A JSON-RPC 2.0 request or notification', additionalProperties: true } })
  @ApiResponse({ status: 200, description: 'JSON-RPC 2.0 response', schema: { type: 'object', additionalProperties: true } })
  @ApiErrors(ErrorCode.INVALID_TOKEN, ErrorCode.FORBIDDEN, ErrorCode.RATE_LIMITED)
  async handle(@Req() request: Request, @Res() response: Response, @CurrentPrincipal() principal: FeedbackTokenPrincipal): Promise<void> {
    assertAllowedMcpOrigin(request, this.allowedOrigins);
    await serveStatelessMcp(request, response, () => this.servers.create(principal));
  }
}
