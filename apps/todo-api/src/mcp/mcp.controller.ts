import { Controller, HttpCode, Post, Req, Res, UseFilters } from '@nestjs/common';
import { ApiBody, ApiExtraModels, ApiOperation, ApiResponse, ApiTags, getSchemaPath } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { CurrentPrincipal, RateLimit, RawResponse, UseAuth, type PrincipalOf } from '#libs/common';
import { TODO_RATE_LIMIT } from '../todos/todo-rate-limit.js';
import { JsonRpcErrorResponseDto, JsonRpcRequestDto } from './dto/mcp.dto.js';
import { McpErrorFilter } from './mcp-error.filter.js';
import { McpService } from './mcp.service.js';

const JSON_RPC_ERROR = { $ref: getSchemaPath(JsonRpcErrorResponseDto) };

@ApiTags('mcp')
@ApiExtraModels(JsonRpcErrorResponseDto, JsonRpcRequestDto)
@Controller('api/v1/mcp')
@UseFilters(McpErrorFilter)
export class McpController {
  constructor(private readonly mcp: McpService) {}

  @Post()
  @HttpCode(200)
  @UseAuth('api-key')
  @RateLimit(TODO_RATE_LIMIT)
  @RawResponse()
  @ApiOperation({
    operationId: 'mcp',
    summary: 'MCP endpoint for AI agents (JSON-RPC 2.0, stateless streamable HTTP)',
    description:
      'One JSON-RPC message per POST (initialize, ping, tools/list, tools/call); no session is kept. Send ' +
      '`Accept: application/json, text/event-stream`. Tools: list_todos, get_todo, create_todo, update_todo, delete_todo, ' +
      'with the REST rules; results carry `structuredContent` and a JSON text block; tool errors are results with ' +
      '`isError: true` and the REST error code in the text. Same API key, subscription and rate limit (shared with the ' +
      'todo routes) as REST. Failures before JSON-RPC (401, 402, 403 Origin not allowed, 429) keep their HTTP status ' +
      'and answer with a JSON-RPC error object whose `error.data.code` is the REST code, instead of the REST envelope. ' +
      'Browser requests must come from an allowed Origin. GET and DELETE answer 405 (no server-initiated streams or sessions).',
  })
  @ApiBody({ type: JsonRpcRequestDto })
  @ApiResponse({ status: 200, description: 'JSON-RPC 2.0 response', content: { 'application/json': { schema: { type: 'object', additionalProperties: true } } } })
  @ApiResponse({ status: 202, description: 'Accepted (a notification)' })
  @ApiResponse({
    status: 400,
    description: 'Not a valid JSON-RPC message: a JSON-RPC error (-32700/-32600). A body that is not JSON at all gets the REST envelope (VALIDATION_ERROR).',
    schema: JSON_RPC_ERROR,
  })
  @ApiResponse({ status: 401, description: 'API_KEY_REQUIRED or INVALID_API_KEY in error.data.code', schema: JSON_RPC_ERROR })
  @ApiResponse({ status: 402, description: 'SUBSCRIPTION_REQUIRED in error.data.code', schema: JSON_RPC_ERROR })
  @ApiResponse({ status: 403, description: 'FORBIDDEN: Origin not allowed (DNS-rebinding protection)', schema: JSON_RPC_ERROR })
  @ApiResponse({ status: 406, description: 'Accept does not allow application/json and text/event-stream' })
  @ApiResponse({ status: 500, description: 'INTERNAL_ERROR', schema: JSON_RPC_ERROR })
  handle(@Req() request: Request, @Res() response: Response, @CurrentPrincipal() principal: PrincipalOf<'api-key'>): Promise<void> {
    return this.mcp.handle(request, response, principal);
  }
}
