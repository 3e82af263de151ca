import { Readable } from 'node:stream';
import type { Request, Response } from 'express';
import type { Server, ServerOptions } from '@modelcontextprotocol/sdk/server/index.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { assertAllowedMcpOrigin } from './mcp-origin.js';
import type { McpToolMetrics } from './mcp-tool-metrics.js';
import type { McpToolRegistry } from './mcp-tool.registry.js';

interface McpSdk {
  Server: typeof import('@modelcontextprotocol/sdk/server/index.js').Server;
  types: typeof import('@modelcontextprotocol/sdk/types.js');
  Transport: typeof import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js').WebStandardStreamableHTTPServerTransport;
  /**
   * One JSON-schema validator for every server: by default each `new Server()` builds its own
   * Ajv instance with formats, which cost more than answering the request.
   */
  jsonSchemaValidator: NonNullable<ServerOptions['jsonSchemaValidator']>;
}

let sdkLoading: Promise<McpSdk> | undefined;
let sdk: McpSdk | undefined;

/**
 * The SDK is loaded on the first MCP request, not at start: its protocol schemas, transport and
 * Ajv are about 6 MB of heap that an app nobody calls over MCP would hold idle.
 */
function loadSdk(): Promise<McpSdk> {
  sdkLoading ??= Promise.all([
    import('@modelcontextprotocol/sdk/server/index.js'),
    import('@modelcontextprotocol/sdk/types.js'),
    import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'),
    import('@modelcontextprotocol/sdk/validation/ajv-provider.js'),
  ]).then(([server, types, transport, ajv]) => {
    sdk = { Server: server.Server, types, Transport: transport.WebStandardStreamableHTTPServerTransport, jsonSchemaValidator: new ajv.AjvJsonSchemaValidator() };
    return sdk;
  });
  return sdkLoading;
}

/** Who the server says it is and what it tells an agent at initialize. */
export interface McpServerDescription {
  info: { name: string; title?: string; version: string };
  instructions?: string;
}

/**
 * One app's MCP endpoint over stateless streamable HTTP: the HTTP adapter between Express and
 * the tool registry. Everything that does not depend on the request (tool listings, JSON
 * Schemas, the Ajv validator, allowed origins) is built once. A stateless SDK transport refuses
 * a second request, so each request gets a fresh one; the SDK server with its handlers is
 * reused: idle servers wait in a small pool, one connects to the request's transport, and
 * disconnects (close) once the answer is out. The caller reaches the handlers as the request's
 * `authInfo`, the SDK's channel for who is calling, so a server holds nothing of a request.
 *
 * The SDK's web-standard transport is driven directly with the body Express already parsed:
 * its Node wrapper converts every request and response through a generic adapter, which cost
 * more than the tool call itself.
 */
export class StatelessMcpEndpoint<Principal, Scope extends string> {
  /** Servers between requests (each request holds one for its duration; concurrent requests each take their own). */
  private readonly idleServers: Server[] = [];

  constructor(
    private readonly description: McpServerDescription,
    private readonly registry: McpToolRegistry<Principal, Scope>,
    private readonly toolMetrics: McpToolMetrics,
    private readonly allowedOrigins: string[],
  ) {}

  /** Answers one JSON-RPC message of an authenticated caller. */
  async serve(request: Request, response: Response, principal: Principal): Promise<void> {
    assertAllowedMcpOrigin(request, this.allowedOrigins);
    const loaded = sdk ?? (await loadSdk());
    const server = this.idleServers.pop() ?? this.createServer(loaded);
    const transport = new loaded.Transport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    // A client that goes away mid-call aborts the handlers still running (close does that).
    const abandon = () => {
      if (!response.writableFinished) void server.close();
    };
    response.on('close', abandon);
    try {
      await server.connect(transport);
      const answer = await transport.handleRequest(toWebRequest(request), { parsedBody: request.body, authInfo: callerInfo(principal) });
      await writeWebResponse(answer, response);
    } finally {
      response.off('close', abandon);
      // Disconnects the server from this request's transport. The SDK builds a "Connection closed" error for
      // requests still pending, whether or not there are any (none after a complete exchange); close() runs
      // synchronously up to its first await, so that error is built here, without the stack trace nobody reads.
      const stackTraceLimit = Error.stackTraceLimit;
      Error.stackTraceLimit = 0;
      const closed = server.close();
      Error.stackTraceLimit = stackTraceLimit;
      await closed;
      if (this.idleServers.length < MAX_IDLE_SERVERS) this.idleServers.push(server);
    }
  }

  private createServer({ Server, types, jsonSchemaValidator }: McpSdk): Server {
    const options: ServerOptions = { capabilities: { tools: { listChanged: false } }, instructions: this.description.instructions, jsonSchemaValidator };
    const server = new Server(this.description.info, options);
    server.setRequestHandler(types.ListToolsRequestSchema, (_request, extra) => this.registry.listFor(principalOf<Principal>(extra.authInfo)));
    server.setRequestHandler(types.CallToolRequestSchema, async ({ params }, extra) => {
      const result = await this.registry.call(principalOf<Principal>(extra.authInfo), params.name, params.arguments, this.toolMetrics.listenerFor(params.name));
      if (!result) throw new types.McpError(types.ErrorCode.InvalidParams, `Unknown tool: ${params.name}`);
      return result;
    });
    return server;
  }
}

/** Idle servers kept between requests: about the number of requests one process serves at once. */
const MAX_IDLE_SERVERS = 64;

/** The authenticated caller as the SDK's AuthInfo (our guards authenticated it; the SDK only passes it to the handlers). */
function callerInfo<Principal>(principal: Principal): AuthInfo {
  return { token: '', clientId: '', scopes: [], extra: { principal } };
}

function principalOf<Principal>(authInfo: AuthInfo | undefined): Principal {
  return authInfo!.extra!.principal as Principal;
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
