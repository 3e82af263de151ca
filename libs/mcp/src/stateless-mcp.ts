import type { Request, Response } from 'express';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv-provider.js';

/**
 * Answers one JSON-RPC message over stateless streamable HTTP. A stateless transport cannot
 * be reused across requests, so each POST gets its own server and transport (cheap: tools
 * are plain registrations), both closed when the response ends.
 */
export async function serveStatelessMcp(request: Request, response: Response, createServer: () => McpServer): Promise<void> {
  const server = createServer();
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  response.on('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(request, response, request.body);
}

/**
 * One JSON-schema validator for every per-request server: by default each `new McpServer()`
 * builds its own Ajv instance with formats, which cost more than answering the request.
 */
export const SHARED_JSON_SCHEMA_VALIDATOR = new AjvJsonSchemaValidator();
