import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { insertUser } from '#libs/testing';
import { insertApiCaller, insertApiKey } from '../support/api-keys.js';
import { startWithDatabase, type TestApp } from '../support/test-apps.js';
import { expectConformance } from './support/conformance.js';

type ToolResult = { isError?: boolean; structuredContent?: any; content: Array<{ type: string; text: string }> };

async function connect(url: string, headers: Record<string, string>): Promise<Client> {
  const client = new Client({ name: 'mcp-e2e', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

function rpc(method: string, params: Record<string, unknown> = {}, id = 1) {
  return { jsonrpc: '2.0', id, method, params };
}

describe('MCP endpoint (POST /api/v1/mcp)', () => {
  let t: TestApp;
  let url: string;
  let key: string;
  let client: Client;

  beforeAll(async () => {
    t = await startWithDatabase('todo-api', { PUBLIC_BASE_URL: 'https://todo.example.test', CORS_ORIGINS: 'https://app.example.test' });
    url = `${t.baseUrl}/api/v1/mcp`;
    key = (await insertApiCaller(t.dataSource)).key;
    client = await connect(url, { Authorization: `Bearer ${key}` });
  });
  afterAll(async () => {
    await client?.close();
    await t?.close();
  });

  it('initializes with the SDK client and lists the tools with schemas, descriptions and annotations', async () => {
    expect(client.getServerVersion()).toMatchObject({ name: 'todo-api', version: '1.0.0' });
    expect(client.getServerCapabilities()?.tools).toBeDefined();
    await expect(client.ping()).resolves.toBeDefined();
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(['create_todo', 'create_todos', 'create_webhook', 'delete_todo', 'delete_webhook', 'get_todo', 'list_categories', 'list_todos', 'list_webhook_deliveries', 'list_webhooks', 'update_todo', 'update_todos']);
    for (const tool of tools) {
      expect(tool.description!.length).toBeGreaterThan(30);
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.outputSchema?.type).toBe('object');
    }
    const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool]));
    expect(byName.list_todos.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false, idempotentHint: true });
    expect(byName.create_todo.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: false });
    expect(byName.delete_todo.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: true });
    expect(byName.create_todo.inputSchema.required).toEqual(['text', 'priority', 'category']);
    expect((byName.create_todo.inputSchema.properties as any).text).toMatchObject({ minLength: 1, maxLength: 5000 });
  });

  it('runs every tool against the same data as REST, with structuredContent and a JSON text block', async () => {
    const created = (await client.callTool({ name: 'create_todo', arguments: { text: 'From an agent', priority: 2, category: 'mcp', estimatedDurationMinutes: 15 } })) as ToolResult;
    expect(created.isError).toBeFalsy();
    const todo = created.structuredContent.todo;
    expect(todo).toEqual({ id: expect.any(Number), text: 'From an agent', priority: 2, category: 'mcp', estimatedDurationMinutes: 15, createdAt: expect.any(Number) });
    expect(JSON.parse(created.content[0].text)).toEqual(created.structuredContent);
    expect((await t.http.get(`/api/v1/todos/${todo.id}`).set('X-API-Key', key).expect(200)).body.data.todo).toEqual(todo);

    const got = (await client.callTool({ name: 'get_todo', arguments: { id: todo.id } })) as ToolResult;
    expect(got.structuredContent).toEqual({ todo });

    const listed = (await client.callTool({ name: 'list_todos', arguments: { category: 'mcp', limit: 10 } })) as ToolResult;
    expect(listed.structuredContent).toEqual({ todos: [todo], nextCursor: null });

    const updated = (await client.callTool({ name: 'update_todo', arguments: { id: todo.id, priority: 1, estimatedDurationMinutes: null } })) as ToolResult;
    expect(updated.structuredContent).toEqual({ todo: { ...todo, priority: 1, estimatedDurationMinutes: null } });

    const deleted = (await client.callTool({ name: 'delete_todo', arguments: { id: todo.id } })) as ToolResult;
    expect(deleted.structuredContent).toEqual({ id: todo.id, deleted: true });
    await t.http.get(`/api/v1/todos/${todo.id}`).set('X-API-Key', key).expect(404);
  });

  it('replays create_todo with the same idempotencyKey instead of creating a duplicate', async () => {
    const args = { text: 'Once only', priority: 3, category: 'mcp-idem', idempotencyKey: 'agent-retry-1' };
    const first = (await client.callTool({ name: 'create_todo', arguments: args })) as ToolResult;
    const second = (await client.callTool({ name: 'create_todo', arguments: args })) as ToolResult;
    expect(second.structuredContent).toEqual(first.structuredContent);
    const list = await t.http.get('/api/v1/todos?category=mcp-idem').set('X-API-Key', key).expect(200);
    expect(list.body.data.todos).toHaveLength(1);
  });

  it.each([
    ['create_todo', { text: '', priority: 1, category: 'a' }, 'VALIDATION_ERROR'],
    ['create_todo', { text: 'a', priority: 5, category: 'a' }, 'VALIDATION_ERROR'],
    ['create_todo', { text: 'a', priority: 1, category: 'a', bogus: 1 }, 'VALIDATION_ERROR'],
    ['update_todo', { id: 1 }, 'VALIDATION_ERROR'],
    ['get_todo', { id: 'one' }, 'VALIDATION_ERROR'],
    ['get_todo', { id: 999999 }, 'NOT_FOUND'],
    ['delete_todo', { id: 0 }, 'VALIDATION_ERROR'],
    ['list_todos', { limit: 501 }, 'VALIDATION_ERROR'],
  ])('answers %s with bad arguments %j as a tool error carrying %s', async (name, args, code) => {
    const result = (await client.callTool({ name, arguments: args })) as ToolResult;
    expect(result.isError).toBe(true);
    expect(result.content[0].text).toContain(code);
    expect(result.structuredContent).toBeUndefined();
  });

  it("cannot see another account's todos", async () => {
    const otherKey = (await insertApiCaller(t.dataSource)).key;
    const theirs = await t.http.post('/api/v1/todos').set('X-API-Key', otherKey).send({ text: 'theirs', priority: 1, category: 'x' }).expect(201);
    const result = (await client.callTool({ name: 'get_todo', arguments: { id: theirs.body.data.todo.id } })) as ToolResult;
    expect(result.isError).toBe(true);
    expect(result.content[0].text).toContain('NOT_FOUND');
  });

  it('refuses a missing key before JSON-RPC: HTTP 401 with a JSON-RPC error body (the SDK client fails to connect)', async () => {
    await expect(connect(url, {})).rejects.toThrow();
    const res = await t.http.post('/api/v1/mcp').set('Accept', 'application/json, text/event-stream').send(rpc('tools/list')).expect(401);
    // The request's id is echoed (JSON-RPC 2.0 §5), as on the feedback endpoint.
    expect(res.body).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32001, message: expect.any(String), data: { code: 'API_KEY_REQUIRED' } } });
    const bad = await t.http.post('/api/v1/mcp').set('X-API-Key', 'tdk_' + 'B'.repeat(38)).send(rpc('tools/list')).expect(401);
    expect(bad.body.error.data.code).toBe('INVALID_API_KEY');
  });

  it('refuses an account without access with HTTP 402 and a JSON-RPC error', async () => {
    const lapsed = await insertUser(t.dataSource);
    const lapsedKey = (await insertApiKey(t.dataSource, lapsed.id)).key;
    const res = await t.http.post('/api/v1/mcp').set('X-API-Key', lapsedKey).set('Accept', 'application/json, text/event-stream').send(rpc('ping')).expect(402);
    expect(res.body).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32002, message: expect.any(String), data: { code: 'SUBSCRIPTION_REQUIRED' } } });
  });

  it('refuses browser requests from a foreign Origin (DNS rebinding) and accepts allowed ones', async () => {
    const post = (origin: string) =>
      t.http.post('/api/v1/mcp').set('X-API-Key', key).set('Origin', origin).set('Accept', 'application/json, text/event-stream').send(rpc('ping'));
    const evil = await post('http://evil.example.com').expect(403);
    expect(evil.body.error.data.code).toBe('FORBIDDEN');
    for (const origin of ['https://todo.example.test', 'https://app.example.test']) {
      expect((await post(origin).expect(200)).body).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
    }
  });

  it('answers GET and DELETE with 405 and Allow: POST (stateless: no streams, no sessions)', async () => {
    for (const method of ['get', 'delete'] as const) {
      const res = await t.http[method]('/api/v1/mcp').set('X-API-Key', key).expect(405);
      expect(res.headers.allow).toContain('POST');
      expect(res.body.error.code).toBe('METHOD_NOT_ALLOWED');
    }
  });

  it('keeps no session: a tools/call works without initialize and sends no Mcp-Session-Id', async () => {
    const res = await t.http
      .post('/api/v1/mcp')
      .set('X-API-Key', key)
      .set('Accept', 'application/json, text/event-stream')
      .send(rpc('tools/call', { name: 'list_todos', arguments: { limit: 1 } }, 7))
      .expect(200);
    expect(res.headers['mcp-session-id']).toBeUndefined();
    expect(res.body.id).toBe(7);
    expect(res.body.result.structuredContent.todos).toHaveLength(1);
  });

  it('shares the 600 per minute API-key budget with the todo routes', async () => {
    const limited = await insertApiCaller(t.dataSource);
    await t.http.get('/api/v1/todos').set('X-API-Key', limited.key).expect(200);
    await t.rateLimits.set(`todos:api-key:${limited.id}`, 600);
    const res = await t.http.post('/api/v1/mcp').set('X-API-Key', limited.key).set('Accept', 'application/json, text/event-stream').send(rpc('ping')).expect(429);
    expect(res.body.error.data.code).toBe('RATE_LIMITED');
    expect(res.headers['retry-after']).toBeDefined();
  });

  it('documents the endpoint in OpenAPI with its JSON-RPC error body', async () => {
    const doc = (await t.http.get('/api/v1/openapi.json').expect(200)).body;
    const operation = doc.paths['/api/v1/mcp'].post;
    expect(operation.operationId).toBe('mcp');
    // The JSON-RPC error with its REST code (error.data.code) narrowed to the codes of the answer (openapi-finish.ts).
    const schema = operation.responses['401'].content['application/json'].schema;
    expect(schema.allOf[0].$ref).toContain('JsonRpcErrorResponseDto');
    expect(schema.allOf[1].properties.error.allOf[1].properties.data.allOf[1].properties.code.enum).toEqual(expect.arrayContaining(['INVALID_API_KEY']));
    expect(doc.components.schemas.JsonRpcErrorResponseDto).toBeDefined();
  });

  it('passes the conformance server scenarios initialize, ping, tools-list (behind a proxy that adds the key)', async () => {
    await expectConformance(t.baseUrl, '/api/v1/mcp', { 'x-api-key': key });
  }, 120_000);
});
