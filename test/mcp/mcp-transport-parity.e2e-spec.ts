import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema, McpError, ErrorCode as McpErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { insertApiCaller } from '../support/api-keys.js';
import { startWithDatabase, type TestApp } from '../support/test-apps.js';

/**
 * The endpoint carries each POST to the SDK's server through its own transport (libs/mcp's
 * HttpExchangeTransport) instead of the SDK's streamable HTTP transport. This suite holds it to
 * the SDK's transport, stateless with JSON answers, as the reference: every case below goes to
 * both, and the HTTP status, media type and body must be the same. Only what depends on the
 * server's own tools and name is left out of the comparison.
 */

const ACCEPT = 'application/json, text/event-stream';
const ping = (id: unknown = 1) => ({ jsonrpc: '2.0', id, method: 'ping' });

interface Exchange {
  name: string;
  headers?: Record<string, string>;
  body: unknown;
  /** Parts of a successful result that name the server itself rather than the transport's behaviour. */
  compareResult?: (result: Record<string, unknown>) => unknown;
}

const CASES: Exchange[] = [
  { name: 'ping', body: ping() },
  { name: 'ping with a string id', body: ping('call-7') },
  { name: 'no Accept header', headers: { accept: '' }, body: ping() },
  { name: 'Accept without text/event-stream', headers: { accept: 'application/json' }, body: ping() },
  { name: 'Accept without application/json', headers: { accept: 'text/event-stream' }, body: ping() },
  { name: 'Content-Type with a charset', headers: { 'content-type': 'application/json; charset=utf-8' }, body: ping() },
  { name: 'Content-Type text/plain', headers: { 'content-type': 'text/plain' }, body: ping() },
  { name: 'not a JSON-RPC message', body: { hello: 'world' } },
  { name: 'a request without jsonrpc', body: { id: 1, method: 'ping' } },
  { name: 'an unknown method', body: { jsonrpc: '2.0', id: 2, method: 'resources/list' } },
  { name: 'a supported MCP-Protocol-Version', headers: { 'mcp-protocol-version': '2025-06-18' }, body: ping() },
  { name: 'an unsupported MCP-Protocol-Version', headers: { 'mcp-protocol-version': '1999-01-01' }, body: ping() },
  {
    name: 'initialize (with an unsupported MCP-Protocol-Version, which initialize may carry)',
    headers: { 'mcp-protocol-version': '1999-01-01' },
    body: { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'parity', version: '1' } } },
    compareResult: ({ protocolVersion, capabilities }) => ({ protocolVersion, capabilities }),
  },
  {
    // The SDK exempts anything shaped like initialize from the version check, with or without an id.
    name: 'initialize as a notification (no id), with an unsupported MCP-Protocol-Version',
    headers: { 'mcp-protocol-version': '1999-01-01' },
    body: { jsonrpc: '2.0', method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'parity', version: '1' } } },
  },
  {
    name: 'initialize with an old protocol version',
    body: { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: { name: 'parity', version: '1' } } },
    compareResult: ({ protocolVersion }) => ({ protocolVersion }),
  },
  { name: 'the initialized notification', body: { jsonrpc: '2.0', method: 'notifications/initialized' } },
  { name: 'a cancellation notification', body: { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 3 } } },
  { name: 'a response from the client', body: { jsonrpc: '2.0', id: 9, result: {} } },
  { name: 'tools/call without a tool name', body: { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { arguments: {} } } },
];

/** The SDK's own transport, one per request as the SDK requires when stateless, in front of a server with the same capabilities. */
function startReference(): Promise<HttpServer> {
  const http = createServer(async (request, response) => {
    const server = new Server({ name: 'reference', version: '1' }, { capabilities: { tools: { listChanged: false } } });
    server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [] }));
    server.setRequestHandler(CallToolRequestSchema, ({ params }) => {
      throw new McpError(McpErrorCode.InvalidParams, `Unknown tool: ${params.name}`);
    });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    response.on('close', () => void server.close());
    await server.connect(transport);
    await transport.handleRequest(request, response);
  });
  return new Promise((resolve) => http.listen(0, '127.0.0.1', () => resolve(http)));
}

async function post(url: string, exchange: Exchange, extraHeaders: Record<string, string> = {}) {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: ACCEPT, ...extraHeaders, ...exchange.headers };
  for (const [name, value] of Object.entries(headers)) if (value === '') delete headers[name];
  const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify(exchange.body) });
  const text = await res.text();
  const body = text === '' ? undefined : (JSON.parse(text) as { result?: Record<string, unknown> });
  if (body?.result && exchange.compareResult) body.result = exchange.compareResult(body.result) as Record<string, unknown>;
  return { status: res.status, mediaType: res.headers.get('content-type')?.split(';')[0], body };
}

describe('MCP endpoint transport parity with the SDK transport', () => {
  let t: TestApp;
  let reference: HttpServer;
  let referenceUrl: string;
  let key: string;

  beforeAll(async () => {
    t = await startWithDatabase('todo-api');
    key = (await insertApiCaller(t.dataSource)).key;
    reference = await startReference();
    referenceUrl = `http://127.0.0.1:${(reference.address() as AddressInfo).port}/mcp`;
  });
  afterAll(async () => {
    await new Promise((resolve) => reference?.close(resolve));
    await t?.close();
  });

  it.each(CASES.map((exchange) => [exchange.name, exchange] as const))('answers %s as the SDK transport does', async (_name, exchange) => {
    const expected = await post(referenceUrl, exchange);
    const actual = await post(`${t.baseUrl}/api/v1/mcp`, exchange, { 'x-api-key': key });
    expect(actual).toEqual(expected);
  });

  it('keeps answering after a case of each kind, on the pooled servers (a tools/call lists the caller’s todos)', async () => {
    const res = await fetch(`${t.baseUrl}/api/v1/mcp`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json', accept: ACCEPT },
      body: JSON.stringify({ jsonrpc: '2.0', id: 11, method: 'tools/call', params: { name: 'list_todos', arguments: {} } }),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ jsonrpc: '2.0', id: 11, result: expect.objectContaining({ structuredContent: { todos: [], nextCursor: null } }) });
  });
});
