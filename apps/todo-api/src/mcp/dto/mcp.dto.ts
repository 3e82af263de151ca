import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

export class JsonRpcErrorDataDto {
  @ApiProperty({ example: 'INVALID_API_KEY', description: 'The REST error code' })
  code: string;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true })
  details?: Record<string, unknown>;
}

export class JsonRpcErrorObjectDto {
  @ApiProperty({ type: 'integer', example: -32001, description: '-32001 unauthenticated, -32002 subscription required, -32003 forbidden Origin, -32029 rate limited, -32600 invalid request' })
  code: number;

  @ApiProperty()
  message: string;

  @ApiProperty({ type: JsonRpcErrorDataDto })
  data: JsonRpcErrorDataDto;
}

/** HTTP-level failure of the MCP endpoint: a JSON-RPC error object, not the REST envelope. */
export class JsonRpcErrorResponseDto {
  @ApiProperty({ enum: ['2.0'] })
  jsonrpc: '2.0';

  @ApiProperty({ type: 'string', nullable: true, example: null })
  id: null;

  @ApiProperty({ type: JsonRpcErrorObjectDto })
  error: JsonRpcErrorObjectDto;
}

/** One JSON-RPC 2.0 request or notification. */
export class JsonRpcRequestDto {
  @ApiProperty({ enum: ['2.0'] })
  jsonrpc: '2.0';

  @ApiPropertyOptional({ oneOf: [{ type: 'string' }, { type: 'integer' }], description: 'Absent for notifications' })
  id?: string | number;

  @ApiProperty({ example: 'tools/call', description: 'initialize, notifications/initialized, ping, tools/list or tools/call' })
  method: string;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, example: { name: 'list_todos', arguments: { limit: 10 } } })
  params?: Record<string, unknown>;
}
