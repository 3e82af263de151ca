import { applyDecorators } from '@nestjs/common';
import { ApiBody, ApiExtraModels, ApiProperty, ApiResponse, getSchemaPath } from '@nestjs/swagger';
import { ErrorEnvelopeDto } from '#libs/common';

/** JSON-RPC allows a string or number id; error answers to unreadable requests carry null. */
const REQUEST_ID = { oneOf: [{ type: 'string' }, { type: 'integer' }] };
const ANSWER_ID = { oneOf: [{ type: 'string', nullable: true }, { type: 'integer' }] };

class JsonRpcErrorDataDto {
  @ApiProperty({ example: 'INVALID_API_KEY', description: 'The REST error code (failures before JSON-RPC handling)' })
  code: string;

  @ApiProperty({ selfRequired: false, type: 'object', additionalProperties: true, description: 'As `error.details` of the REST envelope' })
  details?: Record<string, unknown>;
}

class JsonRpcErrorObjectDto {
  @ApiProperty({
    type: 'integer',
    example: -32001,
    description:
      'JSON-RPC error code: -32700 parse error, -32600 invalid request, -32601 unknown method, -32602 invalid params, -32603 internal; ' +
      'server-defined: -32000 transport (e.g. Accept or Content-Type), -32001 unauthenticated, -32002 subscription required, -32003 forbidden Origin, -32029 rate limited',
  })
  code: number;

  @ApiProperty({ example: 'The API key is invalid, revoked or expired' })
  message: string;

  @ApiProperty({ required: false, type: JsonRpcErrorDataDto, description: 'Present on failures before JSON-RPC handling (credentials, Origin, rate limit)' })
  data?: JsonRpcErrorDataDto;
}

/** A JSON-RPC error answer (also the body of the endpoint's HTTP-level failures, instead of the REST envelope). */
class JsonRpcErrorResponseDto {
  @ApiProperty({ enum: ['2.0'] })
  jsonrpc: '2.0';

  @ApiProperty({ ...ANSWER_ID, example: null, description: 'The request’s id; null when it could not be read' })
  id: string | number | null;

  @ApiProperty({ type: JsonRpcErrorObjectDto })
  error: JsonRpcErrorObjectDto;
}

/** A JSON-RPC success answer; `result` depends on the method. */
class JsonRpcResultResponseDto {
  @ApiProperty({ enum: ['2.0'] })
  jsonrpc: '2.0';

  @ApiProperty({ ...REQUEST_ID, example: 1 })
  id: string | number;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description:
      'initialize: `{protocolVersion, capabilities, serverInfo, instructions}`; ping: `{}`; tools/list: `{tools: [{name, title, description, inputSchema, outputSchema, annotations}]}` ' +
      '(only the tools the credential may call, in name order); tools/call: `{content: [{type: "text", text}], structuredContent?, isError?}`. structuredContent follows the ' +
      'tool’s outputSchema and the text block holds the same JSON. A tool error is a result with isError true whose text is `CODE: message` and, on the next line, ' +
      '`{"error": {code, message, details?}}` as in the REST envelope; a call the credential’s scopes do not allow names them in `details.requiredScopes`.',
    example: { content: [{ type: 'text', text: '{"todos":[],"nextCursor":null}' }], structuredContent: { todos: [], nextCursor: null } },
  })
  result: Record<string, unknown>;
}

/** One JSON-RPC 2.0 request or notification (no batches). */
class JsonRpcRequestDto {
  @ApiProperty({ enum: ['2.0'] })
  jsonrpc: '2.0';

  @ApiProperty({ ...REQUEST_ID, required: false, example: 1, description: 'Absent for notifications (answered 202 with no body)' })
  id?: string | number;

  @ApiProperty({ example: 'tools/call', description: 'initialize, notifications/initialized, ping, tools/list or tools/call' })
  method: string;

  @ApiProperty({ selfRequired: false, type: 'object', additionalProperties: true, example: { name: 'list_todos', arguments: { limit: 10 } } })
  params?: Record<string, unknown>;
}

const jsonRpcError = (code: number, message: string, restCode?: string) => ({
  jsonrpc: '2.0',
  id: null,
  error: { code, message, ...(restCode ? { data: { code: restCode } } : {}) },
});

export interface McpHttpFailure {
  status: number;
  description: string;
  /** Example JSON-RPC error code and message of the failure. */
  example: [code: number, message: string, restCode?: string];
}

/**
 * The documented exchange of a stateless streamable-HTTP MCP endpoint: a JSON-RPC request in,
 * a JSON-RPC answer (result or error) out, 202 for a notification, and the transport's own
 * failures (400, 406, 415) plus the service's (`failures`) as JSON-RPC error bodies.
 */
export function ApiMcpEndpoint(exampleRequest: Record<string, unknown>, exampleResult: Record<string, unknown>, failures: McpHttpFailure[]) {
  const error = { $ref: getSchemaPath(JsonRpcErrorResponseDto) };
  const errorResponse = (failure: McpHttpFailure, schema: object = error) =>
    ApiResponse({
      status: failure.status,
      description: failure.description,
      content: { 'application/json': { schema, example: jsonRpcError(...failure.example) } },
    });
  return applyDecorators(
    ApiExtraModels(JsonRpcRequestDto, JsonRpcResultResponseDto, JsonRpcErrorResponseDto, ErrorEnvelopeDto),
    ApiBody({ schema: { $ref: getSchemaPath(JsonRpcRequestDto) }, examples: { [String(exampleRequest.method)]: { summary: String(exampleRequest.method), value: exampleRequest } } }),
    ApiResponse({
      status: 200,
      description: 'The JSON-RPC answer: a result, or a JSON-RPC error such as -32601 unknown method',
      content: {
        'application/json': {
          schema: { oneOf: [{ $ref: getSchemaPath(JsonRpcResultResponseDto) }, error] },
          example: { jsonrpc: '2.0', id: exampleRequest.id ?? 1, result: exampleResult },
        },
      },
    }),
    ApiResponse({ status: 202, description: 'A notification (no id) was accepted; no body' }),
    errorResponse(
      {
        status: 400,
        description: 'Not a JSON-RPC message (-32700) or an invalid one (-32600). A body that is not JSON at all is refused earlier, with the REST envelope (VALIDATION_ERROR).',
        example: [-32700, 'Parse error: Invalid JSON-RPC message'],
      },
      { oneOf: [error, { $ref: getSchemaPath(ErrorEnvelopeDto) }] },
    ),
    errorResponse({ status: 406, description: 'Accept does not list both application/json and text/event-stream', example: [-32000, 'Not Acceptable: Client must accept both application/json and text/event-stream'] }),
    errorResponse({ status: 415, description: 'Content-Type is not application/json', example: [-32000, 'Unsupported Media Type: Content-Type must be application/json'] }),
    ...failures.map((failure) => errorResponse(failure)),
  );
}
