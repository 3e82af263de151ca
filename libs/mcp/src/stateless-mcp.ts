import { Readable } from 'node:stream';
import type { Request, Response } from 'express';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv-provider.js';

/**
 * Answers one JSON-RPC message over stateless streamable HTTP. A stateless transport cannot
 * be reused across requests, so each POST gets its own server and transport (cheap: tools
 * are plain registrations).
 *
 * The SDK's web-standard transport is driven directly with the body Express already parsed:
 * its Node wrapper converts every request and response through a generic adapter, which cost
 * more than the tool call itself.
 */
export async function serveStatelessMcp(request: Request, response: Response, createServer: () => McpServer): Promise<void> {
  const server = createServer();
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

/**
 * One JSON-schema validator for every per-request server: by default each `new McpServer()`
 * builds its own Ajv instance with formats, which cost more than answering the request.
 */
export const SHARED_JSON_SCHEMA_VALIDATOR = new AjvJsonSchemaValidator();
