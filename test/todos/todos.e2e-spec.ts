import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { insertUser } from '#libs/testing';
import { insertApiCaller, insertApiKey } from '../support/api-keys.js';
import { startWithDatabase, type TestApp } from '../support/test-apps.js';
import { grantBetaAccess } from '../support/api-access.js';

type Todo = { id: number; text: string; priority: number; category: string; estimatedDurationMinutes: number | null; createdAt: number };

describe('todos (API key)', () => {
  let t: TestApp;
  let keyA: string;
  let keyAId: string;
  let keyB: string;
  let userA: string;

  const asA = () => ({ Authorization: `Bearer ${keyA}` });

  async function create(body: Record<string, unknown>, key = keyA): Promise<Todo> {
    const res = await t.http.post('/api/v1/todos').set('X-API-Key', key).send(body).expect(201);
    return res.body.data.todo;
  }

  async function countTodos(userId: string): Promise<number> {
    const rows = await t.dataSource.query(`SELECT count(*)::int AS n FROM todos WHERE user_id = $1`, [userId]);
    return rows[0].n;
  }

  beforeAll(async () => {
    t = await startWithDatabase('todo-api');
    const a = await insertUser(t.dataSource);
    const b = await insertUser(t.dataSource);
    userA = a.id;
    await grantBetaAccess(t.dataSource, a.id);
    await grantBetaAccess(t.dataSource, b.id);
    const ka = await insertApiKey(t.dataSource, a.id);
    keyA = ka.key;
    keyAId = ka.id;
    keyB = (await insertApiKey(t.dataSource, b.id)).key;
  });
  afterAll(async () => {
    await t?.close();
  });

  it('creates a todo: 201 data.todo with an integer id and createdAt in Unix seconds', async () => {
    const before = Math.floor(Date.now() / 1000);
    const res = await t.http.post('/api/v1/todos').set(asA()).send({ text: 'Buy milk', priority: 2, category: 'errands' }).expect(201);
    expect(res.body).toEqual({
      success: true,
      data: { todo: { id: expect.any(Number), text: 'Buy milk', priority: 2, category: 'errands', estimatedDurationMinutes: null, createdAt: expect.any(Number) } },
    });
    const todo = res.body.data.todo as Todo;
    expect(Number.isInteger(todo.id) && todo.id >= 1).toBe(true);
    expect(todo.createdAt).toBeGreaterThanOrEqual(before - 1);
    expect(todo.createdAt).toBeLessThanOrEqual(Math.floor(Date.now() / 1000) + 1);
    expect(res.headers['ratelimit-limit']).toBe('600');
  });

  it('accepts the limits exactly: 5000-character text, 100-character category, priority 1 and 4, duration 0', async () => {
    const todo = await create({ text: 'x'.repeat(5000), priority: 4, category: 'c'.repeat(100), estimatedDurationMinutes: 0 });
    expect(todo.text).toHaveLength(5000);
    expect(todo.estimatedDurationMinutes).toBe(0);
    expect((await create({ text: 'y', priority: 1, category: 'c' })).priority).toBe(1);
  });

  it.each([
    ['empty text', { text: '', priority: 1, category: 'a' }, 'text'],
    ['5001-character text', { text: 'x'.repeat(5001), priority: 1, category: 'a' }, 'text'],
    ['priority 0', { text: 'a', priority: 0, category: 'a' }, 'priority'],
    ['priority 5', { text: 'a', priority: 5, category: 'a' }, 'priority'],
    ['priority 2.5', { text: 'a', priority: 2.5, category: 'a' }, 'priority'],
    ['priority as a string', { text: 'a', priority: '2', category: 'a' }, 'priority'],
    ['101-character category', { text: 'a', priority: 1, category: 'c'.repeat(101) }, 'category'],
    ['empty category', { text: 'a', priority: 1, category: '' }, 'category'],
    ['duration -1', { text: 'a', priority: 1, category: 'a', estimatedDurationMinutes: -1 }, 'estimatedDurationMinutes'],
    ['unknown property', { text: 'a', priority: 1, category: 'a', done: true }, 'done'],
    ['missing text', { priority: 1, category: 'a' }, 'text'],
  ])('refuses a create with %s: 400 VALIDATION_ERROR naming the field, nothing stored', async (_name, body, field) => {
    const before = await countTodos(userA);
    const res = await t.http.post('/api/v1/todos').set(asA()).send(body).expect(400);
    expect(res.body.success).toBe(false);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(res.body.error.details.fields.map((f: { field: string }) => f.field)).toContain(field);
    expect(await countTodos(userA)).toBe(before);
  });

  it('gets, updates (null clears the estimate) and deletes a todo', async () => {
    const todo = await create({ text: 'Write report', priority: 3, category: 'work', estimatedDurationMinutes: 90 });
    const got = await t.http.get(`/api/v1/todos/${todo.id}`).set(asA()).expect(200);
    expect(got.body.data.todo).toEqual(todo);

    const updated = await t.http.put(`/api/v1/todos/${todo.id}`).set(asA()).send({ priority: 1, estimatedDurationMinutes: null }).expect(200);
    expect(updated.body.data.todo).toEqual({ ...todo, priority: 1, estimatedDurationMinutes: null });

    const text = await t.http.put(`/api/v1/todos/${todo.id}`).set(asA()).send({ text: 'Write the report' }).expect(200);
    expect(text.body.data.todo).toEqual({ ...todo, text: 'Write the report', priority: 1, estimatedDurationMinutes: null });

    const deleted = await t.http.delete(`/api/v1/todos/${todo.id}`).set(asA()).expect(200);
    expect(deleted.body).toEqual({ success: true, data: { id: todo.id, deleted: true } });
    await t.http.get(`/api/v1/todos/${todo.id}`).set(asA()).expect(404);
    await t.http.delete(`/api/v1/todos/${todo.id}`).set(asA()).expect(404);
  });

  it.each([
    ['an empty update', {}],
    ['text null', { text: null }],
    ['priority null', { priority: null }],
    ['category null', { category: null }],
    ['priority 5', { priority: 5 }],
    ['an unknown property', { done: true }],
  ])('refuses %s with 400 VALIDATION_ERROR and leaves the todo unchanged', async (_name, body) => {
    const todo = await create({ text: 'Stay as I am', priority: 2, category: 'misc', estimatedDurationMinutes: 5 });
    const res = await t.http.put(`/api/v1/todos/${todo.id}`).set(asA()).send(body).expect(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect((await t.http.get(`/api/v1/todos/${todo.id}`).set(asA()).expect(200)).body.data.todo).toEqual(todo);
  });

  it.each(['abc', '1.5', '0', '-3', '99999999999', '1e3', '0x1A'])('answers the malformed path id %s with 400 VALIDATION_ERROR', async (id) => {
    const requests = {
      GET: () => t.http.get(`/api/v1/todos/${id}`),
      PUT: () => t.http.put(`/api/v1/todos/${id}`).send({ text: 'a' }),
      DELETE: () => t.http.delete(`/api/v1/todos/${id}`),
    };
    for (const [method, request] of Object.entries(requests)) {
      const res = await request().set(asA());
      expect([method, res.status, res.body.error?.code]).toEqual([method, 400, 'VALIDATION_ERROR']);
    }
  });

  it("treats another account's todo as missing (404) and never shows or changes it", async () => {
    const mine = await create({ text: 'Private', priority: 2, category: 'secret' });
    for (const request of [
      t.http.get(`/api/v1/todos/${mine.id}`),
      t.http.put(`/api/v1/todos/${mine.id}`).send({ text: 'hijacked' }),
      t.http.delete(`/api/v1/todos/${mine.id}`),
    ]) {
      const res = await request.set('Authorization', `Bearer ${keyB}`).expect(404);
      expect(res.body.error.code).toBe('NOT_FOUND');
    }
    const listB = await t.http.get('/api/v1/todos?limit=500').set('Authorization', `Bearer ${keyB}`).expect(200);
    expect(listB.body.data.todos.map((todo: Todo) => todo.id)).not.toContain(mine.id);
    expect((await t.http.get(`/api/v1/todos/${mine.id}`).set(asA()).expect(200)).body.data.todo.text).toBe('Private');
  });

  it('refuses requests without a key (401 API_KEY_REQUIRED), with a bad, revoked or JWT credential (401 INVALID_API_KEY), and without access (402)', async () => {
    expect((await t.http.get('/api/v1/todos').expect(401)).body.error.code).toBe('API_KEY_REQUIRED');
    expect((await t.http.get('/api/v1/todos').set('X-API-Key', 'tdk_nope').expect(401)).body.error.code).toBe('INVALID_API_KEY');
    const revoked = await insertApiKey(t.dataSource, userA, { revoked: true });
    expect((await t.http.get('/api/v1/todos').set('X-API-Key', revoked.key).expect(401)).body.error.code).toBe('INVALID_API_KEY');
    const jwt = await t.accessTokenFor(userA);
    expect((await t.http.get('/api/v1/todos').set('Authorization', `Bearer ${jwt}`).expect(401)).body.error.code).toBe('INVALID_API_KEY');
    const lapsed = await insertUser(t.dataSource);
    await t.dataSource.query(`INSERT INTO subscriptions (user_id, status) VALUES ($1, 'past_due')`, [lapsed.id]);
    const lapsedKey = await insertApiKey(t.dataSource, lapsed.id);
    expect((await t.http.get('/api/v1/todos').set('X-API-Key', lapsedKey.key).expect(402)).body.error.code).toBe('SUBSCRIPTION_REQUIRED');
  });

  describe('listing', () => {
    let key: string;
    const created: Todo[] = [];

    beforeAll(async () => {
      key = (await insertApiCaller(t.dataSource)).key;
      for (let i = 0; i < 23; i++) {
        created.push(await create({ text: i % 3 === 0 ? `Call Mom #${i}` : `task ${i}`, priority: (i % 4) + 1, category: i % 2 ? 'odd' : 'even' }, key));
      }
    });

    async function pages(query: string, limit: number): Promise<{ ids: number[]; todos: Todo[]; pageCount: number }> {
      const todos: Todo[] = [];
      let cursor: string | null = null;
      let pageCount = 0;
      do {
        const url: string = `/api/v1/todos?limit=${limit}${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
        const res = await t.http.get(url).set('X-API-Key', key).expect(200);
        expect(res.body.data.todos.length).toBeLessThanOrEqual(limit);
        todos.push(...res.body.data.todos);
        cursor = res.body.data.nextCursor;
        pageCount++;
        expect(pageCount).toBeLessThan(50);
      } while (cursor !== null);
      return { ids: todos.map((todo) => todo.id), todos, pageCount };
    }

    it('defaults to createdAt ascending, then id, 100 per page, nextCursor null at the end', async () => {
      const res = await t.http.get('/api/v1/todos').set('X-API-Key', key).expect(200);
      expect(res.body.data.nextCursor).toBeNull();
      expect(res.body.data.todos.map((todo: Todo) => todo.id)).toEqual(created.map((todo) => todo.id));
    });

    it('returns every todo exactly once across pages, in order', async () => {
      const { ids, pageCount } = await pages('', 5);
      expect(pageCount).toBe(5);
      expect(ids).toEqual(created.map((todo) => todo.id));
    });

    it('pages by priority descending without losing or repeating a todo', async () => {
      const { ids, todos } = await pages('&sort=priority&order=desc', 4);
      expect(new Set(ids).size).toBe(created.length);
      expect([...ids].sort((a, b) => a - b)).toEqual(created.map((todo) => todo.id).sort((a, b) => a - b));
      for (let i = 1; i < todos.length; i++) {
        const [prev, next] = [todos[i - 1], todos[i]];
        expect(prev.priority > next.priority || (prev.priority === next.priority && (prev.createdAt > next.createdAt || (prev.createdAt === next.createdAt && prev.id > next.id)))).toBe(true);
      }
    });

    it('filters by category, priority and text (case-insensitive, wildcards literal)', async () => {
      const { todos } = await pages('&category=odd&priority=2', 3);
      expect(todos.length).toBeGreaterThan(0);
      expect(todos.map((todo) => todo.id)).toEqual(created.filter((todo) => todo.category === 'odd' && todo.priority === 2).map((todo) => todo.id));
      const q = await t.http.get('/api/v1/todos?q=call%20mom').set('X-API-Key', key).expect(200);
      expect(q.body.data.todos.map((todo: Todo) => todo.id)).toEqual(created.filter((todo) => todo.text.startsWith('Call Mom')).map((todo) => todo.id));
      const wildcard = await t.http.get('/api/v1/todos?q=%25').set('X-API-Key', key).expect(200);
      expect(wildcard.body.data.todos).toEqual([]);
    });

    it.each([
      ['limit=0'],
      ['limit=501'],
      ['limit=abc'],
      ['priority=9'],
      ['sort=text'],
      ['order=up'],
      ['cursor=not-a-cursor'],
      ['unknown=1'],
    ])('refuses the query %s with 400 VALIDATION_ERROR', async (query) => {
      const res = await t.http.get(`/api/v1/todos?${query}`).set('X-API-Key', key).expect(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
    });

    it('refuses a cursor used with another sort or filter', async () => {
      const first = await t.http.get('/api/v1/todos?limit=2').set('X-API-Key', key).expect(200);
      const cursor = encodeURIComponent(first.body.data.nextCursor);
      expect((await t.http.get(`/api/v1/todos?limit=2&sort=priority&cursor=${cursor}`).set('X-API-Key', key).expect(400)).body.error.code).toBe('VALIDATION_ERROR');
      expect((await t.http.get(`/api/v1/todos?limit=2&category=odd&cursor=${cursor}`).set('X-API-Key', key).expect(400)).body.error.code).toBe('VALIDATION_ERROR');
    });

    it('reads through the owner-first index, whatever other accounts hold', async () => {
      const other = await insertUser(t.dataSource);
      await t.dataSource.query(
        `INSERT INTO todos (user_id, text, priority, category) SELECT $1, 'bulk ' || g, 1 + g % 4, 'bulk' FROM generate_series(1, 20000) g`,
        [other.id],
      );
      await t.dataSource.query('ANALYZE todos');
      const plan: Array<{ 'QUERY PLAN': string }> = await t.dataSource.query(
        `EXPLAIN SELECT id FROM todos WHERE user_id = $1 ORDER BY created_at ASC, id ASC LIMIT 101`,
        [userA],
      );
      const text = plan.map((row) => row['QUERY PLAN']).join('\n');
      expect(text).toContain('todos_user_id_created_at_id_idx');
      expect(text).not.toContain('Seq Scan');
      const res = await t.http.get('/api/v1/todos').set('X-API-Key', key).expect(200);
      expect(res.body.data.todos).toHaveLength(created.length);
    });
  });

  describe('Idempotency-Key', () => {
    it('replays the first answer for the same key and body, creating one todo', async () => {
      const before = await countTodos(userA);
      const body = { text: 'Pay rent', priority: 1, category: 'bills' };
      const first = await t.http.post('/api/v1/todos').set(asA()).set('Idempotency-Key', 'rent-2026-11').send(body).expect(201);
      const second = await t.http.post('/api/v1/todos').set(asA()).set('Idempotency-Key', 'rent-2026-11').send(body).expect(201);
      expect(second.body).toEqual(first.body);
      expect(second.headers['idempotent-replayed']).toBe('true');
      expect(first.headers['idempotent-replayed']).toBeUndefined();
      expect(await countTodos(userA)).toBe(before + 1);
    });

    it('lets a browser on another origin read Idempotent-Replayed (Access-Control-Expose-Headers)', async () => {
      const origin = 'https://dashboard.example';
      const body = { text: 'Cross-origin replay', priority: 1, category: 'cors' };
      await t.http.post('/api/v1/todos').set(asA()).set('Origin', origin).set('Idempotency-Key', 'cors-replay').send(body).expect(201);
      const replay = await t.http.post('/api/v1/todos').set(asA()).set('Origin', origin).set('Idempotency-Key', 'cors-replay').send(body).expect(201);
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(replay.headers['access-control-allow-origin']).toBe(origin);
      const exposed = String(replay.headers['access-control-expose-headers'] ?? '')
        .split(',')
        .map((name) => name.trim().toLowerCase());
      expect(exposed).toContain('idempotent-replayed');
    });

    it('refuses the same key with a different body: 422 IDEMPOTENCY_KEY_REUSED', async () => {
      await t.http.post('/api/v1/todos').set(asA()).set('Idempotency-Key', 'k-diff').send({ text: 'A', priority: 1, category: 'x' }).expect(201);
      const res = await t.http.post('/api/v1/todos').set(asA()).set('Idempotency-Key', 'k-diff').send({ text: 'B', priority: 1, category: 'x' }).expect(422);
      expect(res.body.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
    });

    it('keeps keys per API key, and an invalid key is 400', async () => {
      const body = { text: 'Same key, other API key', priority: 2, category: 'x' };
      const a = await t.http.post('/api/v1/todos').set(asA()).set('Idempotency-Key', 'shared-name').send(body).expect(201);
      const b = await t.http.post('/api/v1/todos').set('X-API-Key', keyB).set('Idempotency-Key', 'shared-name').send(body).expect(201);
      expect(b.body.data.todo.id).not.toBe(a.body.data.todo.id);
      const bad = await t.http.post('/api/v1/todos').set(asA()).set('Idempotency-Key', 'x'.repeat(256)).send(body).expect(400);
      expect(bad.body.error.code).toBe('VALIDATION_ERROR');
    });

    it('creates one todo when requests with one key arrive at once', async () => {
      const before = await countTodos(userA);
      const body = { text: 'Concurrent', priority: 3, category: 'race' };
      const answers = await Promise.all(
        Array.from({ length: 6 }, () => t.http.post('/api/v1/todos').set(asA()).set('Idempotency-Key', 'race-1').send(body)),
      );
      expect(answers.map((res) => res.status)).toEqual(Array(6).fill(201));
      expect(new Set(answers.map((res) => res.body.data.todo.id)).size).toBe(1);
      expect(await countTodos(userA)).toBe(before + 1);
    });

    it('forgets a key after 24 hours', async () => {
      const body = { text: 'Daily', priority: 3, category: 'routine' };
      const first = await t.http.post('/api/v1/todos').set(asA()).set('Idempotency-Key', 'daily').send(body).expect(201);
      await t.dataSource.query(`UPDATE todo_idempotency_keys SET created_at = now() - interval '25 hours' WHERE api_key_id = $1 AND idempotency_key = 'daily'`, [keyAId]);
      const again = await t.http.post('/api/v1/todos').set(asA()).set('Idempotency-Key', 'daily').send(body).expect(201);
      expect(again.body.data.todo.id).not.toBe(first.body.data.todo.id);
    });
  });

  it('limits each API key to 600 requests a minute with RateLimit headers, then 429 RATE_LIMITED with Retry-After', async () => {
    const user = await insertUser(t.dataSource);
    await grantBetaAccess(t.dataSource, user.id);
    const { id, key } = await insertApiKey(t.dataSource, user.id);
    const first = await t.http.get('/api/v1/todos').set('X-API-Key', key).expect(200);
    expect(first.headers['ratelimit-remaining']).toBe('599');
    // Spend 598 more of the window in the shared counter instead of sending 598 requests.
    await t.rateLimits.add(`todos:api-key:${id}`, 598);
    const last = await t.http.post('/api/v1/todos').set('X-API-Key', key).send({ text: 'the 600th', priority: 1, category: 'x' }).expect(201);
    expect(last.headers['ratelimit-remaining']).toBe('0');
    const limited = await t.http.get('/api/v1/todos').set('X-API-Key', key).expect(429);
    expect(limited.body.error.code).toBe('RATE_LIMITED');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited.headers['ratelimit-limit']).toBe('600');
    // Another key of the same account has its own budget.
    const other = await insertApiKey(t.dataSource, user.id);
    await t.http.get('/api/v1/todos').set('X-API-Key', other.key).expect(200);
  });

  it('counts each accepted request once, and nothing for a request its key cannot make', async () => {
    const counterOf = (apiKeyId: string) => t.rateLimits.hits(`todos:api-key:${apiKeyId}`);
    const paid = await insertUser(t.dataSource);
    await grantBetaAccess(t.dataSource, paid.id);
    const live = await insertApiKey(t.dataSource, paid.id);
    const headers: string[] = [];
    for (let i = 0; i < 3; i++) headers.push((await t.http.get('/api/v1/todos').set('X-API-Key', live.key).expect(200)).headers['ratelimit-remaining']);
    expect(headers).toEqual(['599', '598', '597']);
    expect(Number(await counterOf(live.id))).toBe(3);

    // The key and the limit are read in one statement: a key refused there spends nothing.
    const unpaid = await insertUser(t.dataSource);
    const lapsed = await insertApiKey(t.dataSource, unpaid.id);
    await t.http.get('/api/v1/todos').set('X-API-Key', lapsed.key).expect(402);
    const revoked = await insertApiKey(t.dataSource, paid.id);
    await t.dataSource.query(`UPDATE api_keys SET revoked_at = now() WHERE id = $1`, [revoked.id]);
    await t.http.get('/api/v1/todos').set('X-API-Key', revoked.key).expect(401);
    const expired = await insertApiKey(t.dataSource, paid.id);
    await t.dataSource.query(`UPDATE api_keys SET expires_at = now() - interval '1 second' WHERE id = $1`, [expired.id]);
    await t.http.get('/api/v1/todos').set('X-API-Key', expired.key).expect(401);
    expect([await counterOf(lapsed.id), await counterOf(revoked.id), await counterOf(expired.id)]).toEqual([0, 0, 0]);
  });

  it('documents every todo route in OpenAPI', async () => {
    const doc = (await t.http.get('/api/v1/openapi.json').expect(200)).body;
    expect(doc.paths['/api/v1/todos'].get.operationId).toBe('listTodos');
    expect(doc.paths['/api/v1/todos'].post.responses['201']).toBeDefined();
    expect(doc.paths['/api/v1/todos'].post.responses['422']).toBeDefined();
    expect(doc.paths['/api/v1/todos/{todoId}'].put.operationId).toBe('updateTodo');
    expect(doc.paths['/api/v1/todos/{todoId}'].delete.responses['404']).toBeDefined();
    expect(doc.paths['/api/v1/todos/events'].get.operationId).toBe('streamTodoEvents');
    expect(doc.components.schemas.TodoDto.required).toEqual(expect.arrayContaining(['id', 'text', 'priority', 'category', 'createdAt']));
  });
});
