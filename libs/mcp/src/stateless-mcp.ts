import { Readable } from 'node:stream';
import type { Request, Response } from 'express';
import { Server, type ServerOptions } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ErrorCode as McpErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv-provider.js';
import { assertAllowedMcpOrigin } from './mcp-origin.js';
import type { McpToolMetrics } from './mcp-tool-metrics.js';
import type { McpToolRegistry } from './mcp-tool.registry.js';

/**
 * One JSON-schema validator for every per-request server: by default each `new Server()`
 * builds its own Ajv instance with formats, which cost more than answering the request.
 */
const SHARED_JSON_SCHEMA_VALIDATOR = new AjvJsonSchemaValidator();

/** Who the server says it is and what it tells an agent at initialize. */
export interface McpServerDescription {
  info: { name: string; title?: string; version: string };
  instructions?: string;
}

/**
 * One app's MCP endpoint over stateless streamable HTTP: the HTTP adapter between Express and
 * the tool registry. Everything that does not depend on the request (tool listings, JSON
 * Schemas, the Ajv validator, allowed origins) is built once; a request costs one SDK server
 * and transport (a stateless SDK transport refuses a second request) with two handlers.
 *
 * The SDK's web-standard transport is driven directly with the body Express already parsed:
 * its Node wrapper converts every request and response through a generic adapter, which cost
 * more than the tool call itself.
 */
export class StatelessMcpEndpoint<Principal, Scope extends string> {
  private readonly serverOptions: ServerOptions;

  constructor(
    private readonly description: McpServerDescription,
    private readonly registry: McpToolRegistry<Principal, Scope>,
    private readonly toolMetrics: McpToolMetrics,
    private readonly allowedOrigins: string[],
  ) {
    this.serverOptions = {
      capabilities: { tools: { listChanged: false } },
      instructions: description.instructions,
      jsonSchemaValidator: SHARED_JSON_SCHEMA_VALIDATOR,
    };
  }

  /** Answers one JSON-RPC message of an authenticated caller. */
  async serve(request: Request, response: Response, principal: Principal): Promise<void> {
    assertAllowedMcpOrigin(request, this.allowedOrigins);
    const server = this.createServer(principal);
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    // A client that goes away mid-call aborts the handlers still running. After a complete
    // exchange there is nothing to release (both objects are this request's garbage), and
    // closing would build a stack-traced "Connection closed" error on every request.
    response.on('close', () => {
      if (!response.writableFinished) void server.close();
    });
    await server.connect(transport);
    const answer = await transport.handleRequest(toWebRequest(request), { parsedBody: request.body });
    await writeWebResponse(answer, response);
  }

  private createServer(principal: Principal): Server {
    const server = new Server(this.description.info, this.serverOptions);
    server.setRequestHandler(ListToolsRequestSchema, () => this.registry.listFor(principal));
    server.setRequestHandler(CallToolRequestSchema, async ({ params }) => {
      const result = await this.registry.call(principal, params.name, params.arguments, this.toolMetrics.listenerFor(params.name));
      if (!result) throw new McpError(McpErrorCode.InvalidParams, `Unknown tool: ${params.name}`);
      return result;
    });
    return server;
  }
}

function toWebRequest(request: Request): globalThis.Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else if (value !== undefined) headers.set(name, value);
  }
  return new globalThis.Request(`http://${request.headers.host ?? 'localhost'}${request.originalUrl}`, { method: request.method, headers });
}

async function writeWebResponse(answer: globalThis.Response, response: Response): Promise<void> {
  response.status(answer.status);
  answer.headers.forEach((value, name) => response.setHeader(name, value));
  if (!answer.body) {
    response.end();
  } else if (answer.headers.get('content-type')?.startsWith('text/event-stream')) {
    Readable.fromWeb(answer.body as import('node:stream/web').ReadableStream).pipe(response);
  } else {
    response.end(Buffer.from(await answer.arrayBuffer()));
  }
}
