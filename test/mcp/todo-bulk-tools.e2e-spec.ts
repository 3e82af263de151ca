import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { insertApiCaller } from '../support/api-keys.js';
import { startWithDatabase, type TestApp } from '../support/test-apps.js';

type ToolResult = { isError?: boolean; structuredContent?: any; content: Array<{ type: string; text: string }> };

/** The todo MCP's bulk writes (create_todos, update_todos: all or none) and list_categories, with the SDK client. */
describe('todo MCP bulk tools and list_categories', () => {
  let t: TestApp;
  let caller: { userId: string; id: string; key: string };
  let client: Client;

  beforeAll(async () => {
    t = await startWithDatabase('todo-api');
    caller = await insertApiCaller(t.dataSource);
    client = new Client({ name: 'todo-bulk', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${t.baseUrl}/api/v1/mcp`), { requestInit: { headers: { Authorization: `Bearer ${caller.key}` } } }));
  });
  afterAll(async () => {
    await client?.close();
    await t?.close();
  });

  const call = async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as ToolResult;
  const todoCount = async () => (await t.dataSource.query(`SELECT count(*)::int AS n FROM todos WHERE user_id = $1`, [caller.userId]))[0].n as number;
  const items = (count: number, category: string) => Array.from({ length: count }, (_, i) => ({ text: `${category} ${i}`, priority: (i % 4) + 1, category }));
  const errorOf = (result: ToolResult) => JSON.parse(result.content[0].text.split('\n')[1]).error;

  it('create_todos creates up to 50 in order, as REST would store them, and counts each item against the rate limit', async () => {
    const remaining = async () => Number((await t.http.get('/api/v1/todos?limit=1').set('Authorization', `Bearer ${caller.key}`).expect(200)).headers['ratelimit-remaining']);
    const before = await remaining();
    const created = await call('create_todos', { todos: items(50, 'bulk') });
    expect(created.isError).toBeFalsy();
    expect(created.structuredContent.todos.map((todo: { text: string }) => todo.text)).toEqual(items(50, 'bulk').map((item) => item.text));
    const first = created.structuredContent.todos[0];
    const rest = await t.http.get(`/api/v1/todos/${first.id}`).set('Authorization', `Bearer ${caller.key}`).expect(200);
    expect(rest.body.data.todo).toEqual(first);
    // The call (one request) and its 49 other items, the GET above and this one: 52 fewer left.
    expect(before - (await remaining())).toBe(52);

    const tooMany = await call('create_todos', { todos: items(51, 'over') });
    expect(errorOf(tooMany)).toMatchObject({ code: 'VALIDATION_ERROR', message: 'todos must contain no more than 50 elements' });
    const oneBad = await call('create_todos', { todos: [...items(3, 'partial'), { text: '', priority: 1, category: 'partial' }] });
    expect(errorOf(oneBad)).toMatchObject({ code: 'VALIDATION_ERROR', details: { fields: [{ field: 'todos.3.text', messages: ['todos.3.text must be longer than or equal to 1 characters'] }] } });
    expect(await todoCount()).toBe(50);
  });

  it('create_todos replays the first answer for a repeated idempotencyKey', async () => {
    const first = await call('create_todos', { todos: items(2, 'keyed'), idempotencyKey: 'bulk-key-1' });
    const again = await call('create_todos', { todos: items(2, 'keyed'), idempotencyKey: 'bulk-key-1' });
    expect(again.structuredContent).toEqual(first.structuredContent);
    expect(errorOf(await call('create_todos', { todos: items(3, 'keyed'), idempotencyKey: 'bulk-key-1' })).code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect((await t.dataSource.query(`SELECT count(*)::int AS n FROM todos WHERE user_id = $1 AND category = 'keyed'`, [caller.userId]))[0].n).toBe(2);
  });

  it('update_todos changes all or none: an unknown id is NOT_FOUND and leaves every todo as it was', async () => {
    const [a, b] = (await call('create_todos', { todos: items(2, 'upd') })).structuredContent.todos;
    const updated = await call('update_todos', { todos: [{ id: a.id, priority: 4 }, { id: b.id, text: 'renamed', estimatedDurationMinutes: 30 }] });
    expect(updated.structuredContent.todos).toEqual([
      { ...a, priority: 4 },
      { ...b, text: 'renamed', estimatedDurationMinutes: 30 },
    ]);
    const refused = await call('update_todos', { todos: [{ id: a.id, text: 'not applied' }, { id: 2147483000, priority: 1 }] });
    expect(errorOf(refused)).toMatchObject({ code: 'NOT_FOUND', details: { index: 1, id: 2147483000 } });
    expect((await t.http.get(`/api/v1/todos/${a.id}`).set('Authorization', `Bearer ${caller.key}`).expect(200)).body.data.todo.text).toBe(a.text);
    expect(errorOf(await call('update_todos', { todos: [{ id: a.id }] })).details.fields[0].field).toBe('todos.0');
    expect(errorOf(await call('update_todos', { todos: [{ id: a.id, priority: 2 }, { id: a.id, priority: 3 }] })).details.fields[0].field).toBe('todos.1.id');
  });

  it('refuses a bulk call whose items would take the rate limit over, writing nothing', async () => {
    const key = `todos:api-key:${caller.id}`;
    await t.http.get('/api/v1/todos').set('Authorization', `Bearer ${caller.key}`).expect(200);
    await t.rateLimits.set(key, 560);
    const before = await todoCount();
    const refused = await call('create_todos', { todos: items(50, 'limited') });
    expect(errorOf(refused).code).toBe('RATE_LIMITED');
    expect(await todoCount()).toBe(before);
    await t.rateLimits.clear();
  });

  it('list_categories answers every category in use with its count, by name', async () => {
    const listed = await call('list_categories', {});
    const counts = (await t.dataSource.query(`SELECT category, count(*)::int AS count FROM todos WHERE user_id = $1 GROUP BY category ORDER BY category`, [caller.userId])) as Array<{ category: string; count: number }>;
    expect(listed.structuredContent.categories).toEqual(counts);
    expect(listed.structuredContent.categories.find((entry: { category: string }) => entry.category === 'bulk')).toEqual({ category: 'bulk', count: 50 });
    const stranger = await insertApiCaller(t.dataSource);
    const other = new Client({ name: 'todo-bulk-other', version: '1.0.0' });
    await other.connect(new StreamableHTTPClientTransport(new URL(`${t.baseUrl}/api/v1/mcp`), { requestInit: { headers: { Authorization: `Bearer ${stranger.key}` } } }));
    expect(((await other.callTool({ name: 'list_categories', arguments: {} })) as ToolResult).structuredContent).toEqual({ categories: [] });
    await other.close();
  });
});
