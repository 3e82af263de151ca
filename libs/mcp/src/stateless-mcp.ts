import type { Request, Response } from 'express';
import type { Server, ServerOptions } from '@modelcontextprotocol/sdk/server/index.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCErrorResponse, JSONRPCMessage, JSONRPCRequest, JSONRPCResultResponse, RequestId } from '@modelcontextprotocol/sdk/types.js';
import { assertAllowedMcpOrigin } from './mcp-origin.js';
import type { McpToolMetrics } from './mcp-tool.metrics.js';
import type { McpToolRegistry } from './mcp-tool.registry.js';

interface McpSdk {
  Server: typeof import('@modelcontextprotocol/sdk/server/index.js').Server;
  types: typeof import('@modelcontextprotocol/sdk/types.js');
  isJsonContentType: typeof import('@modelcontextprotocol/sdk/shared/mediaType.js').isJsonContentType;
  /**
   * One JSON-schema validator for every server: by default each `new Server()` builds its own
   * Ajv instance with formats, which cost more than answering the request.
   */
  jsonSchemaValidator: NonNullable<ServerOptions['jsonSchemaValidator']>;
}

let sdkLoading: Promise<McpSdk> | undefined;
let sdk: McpSdk | undefined;

/**
 * The SDK is loaded on the first MCP request, not at start: its protocol schemas and Ajv are
 * about 6 MB of heap that an app nobody calls over MCP would hold idle.
 */
function loadSdk(): Promise<McpSdk> {
  sdkLoading ??= Promise.all([
    import('@modelcontextprotocol/sdk/server/index.js'),
    import('@modelcontextprotocol/sdk/types.js'),
    import('@modelcontextprotocol/sdk/shared/mediaType.js'),
    import('@modelcontextprotocol/sdk/validation/ajv-provider.js'),
  ]).then(([server, types, mediaType, ajv]) => {
    sdk = { Server: server.Server, types, isJsonContentType: mediaType.isJsonContentType, jsonSchemaValidator: new ajv.AjvJsonSchemaValidator() };
    return sdk;
  });
  return sdkLoading;
}

/** Who the server says it is and what it tells an agent at initialize. */
export interface McpServerDescription {
  info: { name: string; title?: string; version: string };
  instructions?: string;
}

/** A JSON-RPC answer to a request: a result or an error, with the request's id. */
type JsonRpcAnswer = JSONRPCResultResponse | JSONRPCErrorResponse;

/**
 * The SDK's Transport interface for one pooled server, carrying one HTTP exchange at a time: the
 * endpoint hands it the request's message, the SDK's Protocol answers through `send`, and the
 * answer resolves the exchange. The SDK's own streamable HTTP transport is single-use when
 * stateless (it refuses a second request, so that ids of different clients cannot collide), and
 * builds a WHATWG Request, Headers, URL, stream mapping and Response per call, which cost more
 * than the tool call; here a server holds one exchange at a time, so ids cannot collide, and the
 * transport stays connected for the server's life.
 */
class HttpExchangeTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport['onmessage'];
  private awaiting: { id: RequestId; answer: (message: JsonRpcAnswer | undefined) => void } | undefined;

  async start(): Promise<void> {}

  /**
   * Only the answer to the request in hand leaves: a stateless JSON exchange has no stream for
   * server-sent notifications or requests (the SDK's transport drops them in this mode too).
   */
  async send(message: JSONRPCMessage): Promise<void> {
    if (this.awaiting && 'id' in message && message.id === this.awaiting.id && ('result' in message || 'error' in message)) {
      const { answer } = this.awaiting;
      this.awaiting = undefined;
      answer(message as JsonRpcAnswer);
    }
  }

  /** Disconnects (the SDK's Server.close): an exchange still waiting ends without an answer. */
  async close(): Promise<void> {
    const awaiting = this.awaiting;
    this.awaiting = undefined;
    awaiting?.answer(undefined);
    this.onclose?.();
  }

  /** Hands a request to the server; resolves with its answer, or undefined if the server was closed first. */
  exchange(request: JSONRPCRequest, authInfo: AuthInfo): Promise<JsonRpcAnswer | undefined> {
    return new Promise((answer) => {
      this.awaiting = { id: request.id, answer };
      this.onmessage?.(request, { authInfo });
    });
  }

  /** Hands over a notification or a response, which get no answer. */
  deliver(message: JSONRPCMessage, authInfo: AuthInfo): void {
    this.onmessage?.(message, { authInfo });
  }
}

interface ConnectedServer {
  server: Server;
  transport: HttpExchangeTransport;
}

/** A JSON-RPC error the transport answers itself (before the server sees the message), with its HTTP status. */
interface TransportRefusal {
  status: number;
  code: number;
  message: string;
}

/**
 * One app's MCP endpoint over stateless streamable HTTP: the HTTP adapter between Express and
 * the tool registry. Everything that does not depend on the request (tool listings, JSON
 * Schemas, the Ajv validator, allowed origins, the SDK servers with their handlers) is built
 * once. Idle servers wait in a small pool, each connected to its own HttpExchangeTransport; a
 * request takes one for its duration (concurrent requests each take their own). The caller
 * reaches the handlers as the request's `authInfo`, the SDK's channel for who is calling, so a
 * server holds nothing of a request.
 *
 * The HTTP rules of the streamable HTTP transport are those of the SDK's own transport, with its
 * answers to the letter (test/mcp/mcp-transport-parity compares them case by case); the
 * message is validated once, against the SDK's JSON-RPC message schema, and the answer
 * serialised once, straight into the Express response.
 */
export class StatelessMcpEndpoint<Principal, Scope extends string> {
  private readonly idleServers: ConnectedServer[] = [];

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
    const admitted = admitExchange(request, loaded);
    if ('refusal' in admitted) return writeRefusal(response, admitted.refusal);
    const { message } = admitted;
    const isRequest = 'method' in message && 'id' in message;

    const connected = this.idleServers.pop() ?? (await this.connectServer(loaded));
    const authInfo = callerInfo(principal);
    if (!isRequest) {
      // A notification or a response: accepted, nothing to answer.
      connected.transport.deliver(message, authInfo);
      this.release(connected);
      response.status(202).end();
      return;
    }
    // A client that goes away mid-call aborts the handlers still running (close does that); that server is not reused.
    let abandoned = false;
    const abandon = () => {
      if (response.writableFinished) return;
      abandoned = true;
      void connected.server.close();
    };
    response.on('close', abandon);
    try {
      const answer = await connected.transport.exchange(message as JSONRPCRequest, authInfo);
      if (answer && !abandoned) writeJson(response, 200, answer);
    } finally {
      response.off('close', abandon);
      if (!abandoned) this.release(connected);
    }
  }

  private release(connected: ConnectedServer): void {
    if (this.idleServers.length < MAX_IDLE_SERVERS) this.idleServers.push(connected);
  }

  private async connectServer({ Server, types, jsonSchemaValidator }: McpSdk): Promise<ConnectedServer> {
    const options: ServerOptions = { capabilities: { tools: { listChanged: false } }, instructions: this.description.instructions, jsonSchemaValidator };
    const server = new Server(this.description.info, options);
    server.setRequestHandler(types.ListToolsRequestSchema, (_request, extra) => this.registry.listFor(principalOf<Principal>(extra.authInfo)));
    server.setRequestHandler(types.CallToolRequestSchema, async ({ params }, extra) => {
      const result = await this.registry.call(principalOf<Principal>(extra.authInfo), params.name, params.arguments, this.toolMetrics.listenerFor(params.name));
      if (!result) throw new types.McpError(types.ErrorCode.InvalidParams, `Unknown tool: ${params.name}`);
      return result;
    });
    const transport = new HttpExchangeTransport();
    await server.connect(transport);
    return { server, transport };
  }
}

/** Idle servers kept between requests: about the number of requests one process serves at once. */
const MAX_IDLE_SERVERS = 64;

/**
 * The streamable HTTP transport's checks on a POST, the SDK transport's in its order and words:
 * Accept, Content-Type, the message itself (validated here, once), then the protocol version
 * (after initialize). Answers the message, or the transport's refusal.
 */
function admitExchange(request: Request, loaded: McpSdk): { message: JSONRPCMessage } | { refusal: TransportRefusal } {
  const accept = request.headers.accept;
  if (!accept?.includes('application/json') || !accept.includes('text/event-stream')) {
    return { refusal: { status: 406, code: -32000, message: 'Not Acceptable: Client must accept both application/json and text/event-stream' } };
  }
  if (!loaded.isJsonContentType(request.headers['content-type'] ?? null)) {
    return { refusal: { status: 415, code: -32000, message: 'Unsupported Media Type: Content-Type must be application/json' } };
  }
  const parsed = loaded.types.JSONRPCMessageSchema.safeParse(request.body);
  if (!parsed.success) return { refusal: { status: 400, code: -32700, message: 'Parse error: Invalid JSON-RPC message' } };
  const message = parsed.data;
  if (!isInitialize(message, loaded)) {
    const unsupported = unsupportedProtocolVersion(request, loaded);
    if (unsupported) return { refusal: { status: 400, code: -32000, message: unsupported } };
  }
  return { message };
}

function isInitialize(message: JSONRPCMessage, { types }: McpSdk): boolean {
  return 'method' in message && message.method === 'initialize' && types.isInitializeRequest(message);
}

/** After initialize, an MCP-Protocol-Version header must name a version the SDK speaks (absent: the negotiated one). */
function unsupportedProtocolVersion(request: Request, { types }: McpSdk): string | undefined {
  const version = request.headers['mcp-protocol-version'];
  if (version === undefined || (typeof version === 'string' && types.SUPPORTED_PROTOCOL_VERSIONS.includes(version))) return undefined;
  return `Bad Request: Unsupported protocol version: ${String(version)} (supported versions: ${types.SUPPORTED_PROTOCOL_VERSIONS.join(', ')})`;
}

/** A refusal as the SDK's transport writes it: a JSON-RPC error without an id. */
function writeRefusal(response: Response, { status, code, message }: TransportRefusal): void {
  writeJson(response, status, { jsonrpc: '2.0', error: { code, message }, id: null });
}

function writeJson(response: Response, status: number, body: unknown): void {
  response.status(status).setHeader('content-type', 'application/json');
  response.end(JSON.stringify(body));
}

/** The authenticated caller as the SDK's AuthInfo (our guards authenticated it; the SDK only passes it to the handlers). */
function callerInfo<Principal>(principal: Principal): AuthInfo {
  return { token: '', clientId: '', scopes: [], extra: { principal } };
}

function principalOf<Principal>(authInfo: AuthInfo | undefined): Principal {
  return authInfo!.extra!.principal as Principal;
}
