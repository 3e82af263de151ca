import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { insertApiCaller } from '../support/api-keys.js';
import { startWithDatabase, type TestApp } from '../support/test-apps.js';

/**
 * The endpoint reuses SDK servers across stateless requests: whatever a server answers must be
 * the caller's own, also when many callers' requests are in flight at once.
 */
describe('MCP endpoint with concurrent callers', () => {
  let t: TestApp;
  const callers: Array<{ key: string; text: string }> = [];

  beforeAll(async () => {
    t = await startWithDatabase('todo-api');
    for (const name of ['first', 'second', 'third']) {
      const { key } = await insertApiCaller(t.dataSource);
      const text = `the ${name} caller's todo`;
      const created = await fetch(`${t.baseUrl}/api/v1/todos`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify({ text, priority: 2, category: 'mcp' }),
      });
      expect(created.status).toBe(201);
      callers.push({ key, text });
    }
  });
  afterAll(async () => {
    await t?.close();
  });

  async function listTodos(key: string, id: number): Promise<{ id: unknown; texts: string[] }> {
    const res = await fetch(`${t.baseUrl}/api/v1/mcp`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'list_todos', arguments: {} } }),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { id: unknown; result: { structuredContent: { todos: Array<{ text: string }> } } };
    return { id: body.id, texts: body.result.structuredContent.todos.map((todo) => todo.text) };
  }

  it('answers every caller with its own todos and its own request id, sequentially and all at once', async () => {
    for (const [i, caller] of callers.entries()) expect(await listTodos(caller.key, i)).toEqual({ id: i, texts: [caller.text] });
    const calls = Array.from({ length: 30 }, (_, i) => ({ caller: callers[i % callers.length], id: 100 + i }));
    const answers = await Promise.all(calls.map(({ caller, id }) => listTodos(caller.key, id)));
    expect(answers).toEqual(calls.map(({ caller, id }) => ({ id, texts: [caller.text] })));
  });
});
