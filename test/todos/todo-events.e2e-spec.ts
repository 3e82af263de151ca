import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { EventSource } from 'eventsource';
import { insertUser, until, usingRealPostgres } from '#libs/testing';
import { insertApiKey } from '../support/api-keys.js';
import { TodoEventsService } from '../../apps/todo-api/src/todos/todo-events.service.js';
import { TodoStreamCredentialChecks } from '../../apps/todo-api/src/todos/todo-stream-credential-checks.service.js';
import { TodoStreamRegistry } from '../../apps/todo-api/src/todos/todo-streams.registry.js';
import { TodosRepository } from '../../apps/todo-api/src/todos/todos.repository.js';
import { startApp, startWithDatabase, type TestApp } from '../support/test-apps.js';
import { grantBetaAccess } from '../support/api-access.js';

interface Received {
  type: string;
  data: any;
  id: string;
}

const EVENT_TYPES = ['todo.created', 'todo.updated', 'todo.deleted'];

/** An EventSource (the npm package, as a browser would use it) collecting our events. */
function openStream(url: string, headers: Record<string, string> = {}) {
  const received: Received[] = [];
  const source = new EventSource(url, {
    fetch: (input, init) => fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), ...headers } }),
  });
  for (const type of EVENT_TYPES) {
    source.addEventListener(type, (event) => received.push({ type, data: JSON.parse(event.data), id: event.lastEventId }));
  }
  const opened = new Promise<void>((resolve, reject) => {
    source.onopen = () => resolve();
    source.onerror = (error) => reject(new Error(`stream failed: ${(error as { message?: string }).message ?? 'error'}`));
  });
  async function waitFor(count: number, timeoutMs = 2000): Promise<Received[]> {
    const deadline = Date.now() + timeoutMs;
    while (received.length < count) {
      if (Date.now() > deadline) throw new Error(`only ${received.length} of ${count} events within ${timeoutMs} ms`);
      await sleep(20);
    }
    return received;
  }
  return { source, received, opened, waitFor };
}

describe('realtime todo stream (GET /api/v1/todos/events)', () => {
  let t: TestApp & { database: { url: string } };
  let events: TodoEventsService;
  let userId: string;
  let key: string;

  beforeAll(async () => {
    t = await startWithDatabase('todo-api');
    events = t.app.get(TodoEventsService);
    const user = await insertUser(t.dataSource);
    userId = user.id;
    await grantBetaAccess(t.dataSource, user.id);
    key = (await insertApiKey(t.dataSource, user.id)).key;
  });
  afterAll(async () => {
    await t?.close();
  });

  it(`fans out through ${usingRealPostgres() ? 'Postgres LISTEN/NOTIFY' : 'the in-process fallback (embedded database)'}`, () => {
    expect(events.mode).toBe(usingRealPostgres() ? 'notify' : 'in-process');
    expect(events.isListening()).toBe(true);
  });

  it('streams todo.created, todo.updated and todo.deleted with ids to an API-key stream', async () => {
    const stream = openStream(`${t.baseUrl}/api/v1/todos/events`, { Authorization: `Bearer ${key}` });
    await stream.opened;
    try {
      const created = await t.http.post('/api/v1/todos').set('X-API-Key', key).send({ text: 'Stream me', priority: 2, category: 'live' }).expect(201);
      const todo = created.body.data.todo;
      await t.http.put(`/api/v1/todos/${todo.id}`).set('X-API-Key', key).send({ priority: 1 }).expect(200);
      await t.http.delete(`/api/v1/todos/${todo.id}`).set('X-API-Key', key).expect(200);
      const got = await stream.waitFor(3);
      expect(got.map((event) => event.type)).toEqual(['todo.created', 'todo.updated', 'todo.deleted']);
      expect(got[0].data).toEqual(todo);
      expect(got[1].data).toEqual({ ...todo, priority: 1 });
      expect(got[2].data).toEqual({ id: todo.id });
      const ids = got.map((event) => BigInt(event.id.replace(/^evt_/, '')));
      expect(ids[0] < ids[1] && ids[1] < ids[2]).toBe(true);
    } finally {
      stream.source.close();
    }
  });

  it('delivers a write made as soon as the stream is open: the start position is fixed before the response starts', async () => {
    // A slow start-position read (a busy database) widens the window a client can write in.
    const repository = t.app.get(TodosRepository);
    const latestEventId = repository.latestEventId.bind(repository);
    repository.latestEventId = async (owner: string) => {
      await sleep(300);
      return latestEventId(owner);
    };
    const stream = openStream(`${t.baseUrl}/api/v1/todos/events`, { Authorization: `Bearer ${key}` });
    try {
      await stream.opened;
      const created = await t.http.post('/api/v1/todos').set('X-API-Key', key).send({ text: 'Right after open', priority: 3, category: 'race' }).expect(201);
      const got = await stream.waitFor(1);
      expect(got[0]).toMatchObject({ type: 'todo.created', data: { id: created.body.data.todo.id } });
    } finally {
      stream.source.close();
      repository.latestEventId = latestEventId;
    }
  });

  it("accepts a JWT in access_token (EventSource) and never logs it; shows no other account's events", async () => {
    const jwt = await t.accessTokenFor(userId);
    const stream = openStream(`${t.baseUrl}/api/v1/todos/events?access_token=${encodeURIComponent(jwt)}`);
    await stream.opened;
    try {
      const other = await insertUser(t.dataSource);
      await grantBetaAccess(t.dataSource, other.id);
      const otherKey = (await insertApiKey(t.dataSource, other.id)).key;
      await t.http.post('/api/v1/todos').set('X-API-Key', otherKey).send({ text: 'Not yours', priority: 1, category: 'x' }).expect(201);
      const mine = await t.http.post('/api/v1/todos').set('X-API-Key', key).send({ text: 'Yours', priority: 1, category: 'x' }).expect(201);
      const got = await stream.waitFor(1);
      const seen = got.length;
      expect(seen).toBe(1);
      await sleep(100);
      expect(stream.received).toHaveLength(seen); // and no other account's event after it
      expect(got[0].data.id).toBe(mine.body.data.todo.id);
    } finally {
      stream.source.close();
    }
    expect(t.logs.leaksOf([jwt])).toEqual([]);
  });

  it('accepts an API key in access_token and a JWT as bearer', async () => {
    const viaQuery = await fetch(`${t.baseUrl}/api/v1/todos/events?access_token=${key}`);
    expect(viaQuery.status).toBe(200);
    expect(viaQuery.headers.get('content-type')).toContain('text/event-stream');
    await viaQuery.body?.cancel();
    const viaBearer = await fetch(`${t.baseUrl}/api/v1/todos/events`, { headers: { Authorization: `Bearer ${await t.accessTokenFor(userId)}` } });
    expect(viaBearer.status).toBe(200);
    await viaBearer.body?.cancel();
    expect(t.logs.text()).toContain('/api/v1/todos/events'); // the requests are logged...
    expect(t.logs.leaksOf([key])).toEqual([]); // ...without the credential in the query
  });

  it('refuses missing or bad credentials (401) and accounts without access (402), in the envelope', async () => {
    const none = await t.http.get('/api/v1/todos/events').expect(401);
    expect(none.body).toEqual({ success: false, error: { code: 'AUTH_REQUIRED', message: expect.any(String) } });
    expect((await t.http.get('/api/v1/todos/events?access_token=garbage').expect(401)).body.error.code).toBe('AUTH_REQUIRED');
    const badKey = 'tdk_' + 'A'.repeat(38);
    expect((await t.http.get(`/api/v1/todos/events?access_token=${badKey}`).expect(401)).body.error.code).toBe('INVALID_API_KEY');
    const noAccess = await insertUser(t.dataSource);
    const jwt = await t.accessTokenFor(noAccess.id);
    expect((await t.http.get(`/api/v1/todos/events?access_token=${jwt}`).expect(402)).body.error.code).toBe('SUBSCRIPTION_REQUIRED');
    const revokedSession = await t.accessTokenFor(userId);
    await t.dataSource.query(`UPDATE sessions SET revoked_at = now() WHERE user_id = $1`, [userId]);
    expect((await t.http.get('/api/v1/todos/events').set('Authorization', `Bearer ${revokedSession}`).expect(401)).body.error.code).toBe('AUTH_REQUIRED');
  });

  it('sends a heartbeat comment at the configured interval (25 s by default)', async () => {
    const none = undefined as never;
    expect(new TodoStreamRegistry(none, none, none).heartbeatIntervalMs).toBe(25_000);
    expect(new TodoStreamCredentialChecks(none, none, none).intervalMs).toBe(30_000);
    const streams = t.app.get(TodoStreamRegistry);
    const previous = streams.heartbeatIntervalMs;
    streams.heartbeatIntervalMs = 100;
    const controller = new AbortController();
    try {
      const started = Date.now();
      const res = await fetch(`${t.baseUrl}/api/v1/todos/events`, { headers: { 'X-API-Key': key }, signal: controller.signal });
      const reader = res.body!.getReader();
      let text = '';
      const deadline = Date.now() + 2000;
      const comments = () => text.split('\n').filter((line) => line.startsWith(':')).length;
      // Several comments within a second show a repeating heartbeat, not a one-off preamble.
      while (comments() < 3 && Date.now() < deadline) {
        const { value, done } = await reader.read();
        if (done) break;
        text += new TextDecoder().decode(value);
      }
      expect(comments()).toBeGreaterThanOrEqual(3);
      expect(Date.now() - started).toBeGreaterThanOrEqual(200);
    } finally {
      controller.abort();
      streams.heartbeatIntervalMs = previous;
    }
  });

  it('replays what was missed after Last-Event-ID', async () => {
    const first = openStream(`${t.baseUrl}/api/v1/todos/events`, { 'X-API-Key': key });
    await first.opened;
    const a = await t.http.post('/api/v1/todos').set('X-API-Key', key).send({ text: 'before the gap', priority: 3, category: 'gap' }).expect(201);
    const [seen] = await first.waitFor(1);
    first.source.close();
    const b = await t.http.post('/api/v1/todos').set('X-API-Key', key).send({ text: 'in the gap', priority: 3, category: 'gap' }).expect(201);
    await t.http.delete(`/api/v1/todos/${a.body.data.todo.id}`).set('X-API-Key', key).expect(200);

    const resumed = openStream(`${t.baseUrl}/api/v1/todos/events`, { 'X-API-Key': key, 'Last-Event-ID': seen.id });
    await resumed.opened;
    try {
      const c = await t.http.post('/api/v1/todos').set('X-API-Key', key).send({ text: 'after the gap', priority: 3, category: 'gap' }).expect(201);
      const got = await resumed.waitFor(3);
      expect(got.map((event) => [event.type, event.data.id])).toEqual([
        ['todo.created', b.body.data.todo.id],
        ['todo.deleted', a.body.data.todo.id],
        ['todo.created', c.body.data.todo.id],
      ]);
    } finally {
      resumed.source.close();
    }
  });

  it('delivers a burst of concurrent changes exactly once each, in event-id order', async () => {
    const stream = openStream(`${t.baseUrl}/api/v1/todos/events`, { 'X-API-Key': key });
    await stream.opened;
    try {
      const answers = await Promise.all(
        Array.from({ length: 15 }, (_, i) => t.http.post('/api/v1/todos').set('X-API-Key', key).send({ text: `burst ${i}`, priority: 1, category: 'burst' })),
      );
      expect(answers.every((res) => res.status === 201)).toBe(true);
      const got = await stream.waitFor(15, 5000);
      const seen = got.length;
      expect(seen).toBe(15);
      await sleep(100);
      expect(stream.received).toHaveLength(seen); // no duplicate arrives late
      expect(got.map((event) => event.data.id).sort((a, b) => a - b)).toEqual(answers.map((res) => res.body.data.todo.id).sort((a, b) => a - b));
      const ids = got.map((event) => BigInt(event.id.replace(/^evt_/, '')));
      expect(ids.every((id, i) => i === 0 || id > ids[i - 1])).toBe(true);
    } finally {
      stream.source.close();
    }
  });

  it('forgets a stream when its client disconnects (no listener leak)', async () => {
    await until(() => events.subscriberCount() === 0);
    const streams = Array.from({ length: 5 }, () => openStream(`${t.baseUrl}/api/v1/todos/events`, { 'X-API-Key': key }));
    await Promise.all(streams.map((stream) => stream.opened));
    expect(events.subscriberCount()).toBe(5);
    for (const stream of streams) stream.source.close();
    await until(() => events.subscriberCount() === 0);
    // A change after the disconnects is delivered to nobody and breaks nothing.
    await t.http.post('/api/v1/todos').set('X-API-Key', key).send({ text: 'nobody listens', priority: 4, category: 'x' }).expect(201);
    expect(events.subscriberCount()).toBe(0);
  });

  (usingRealPostgres() ? it : it.skip)('catches a stream up with what was committed while the LISTEN connection was down (real Postgres only)', async () => {
    const stream = openStream(`${t.baseUrl}/api/v1/todos/events`, { 'X-API-Key': key });
    await stream.opened;
    try {
      const killed = await t.dataSource.query(
        `SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE application_name = 'todo-api-events' AND datname = current_database()`,
      );
      expect(killed.length).toBe(1);
      await until(() => !events.isListening());
      const created = await t.http.post('/api/v1/todos').set('X-API-Key', key).send({ text: 'while deaf', priority: 2, category: 'x' }).expect(201);
      const [event] = await stream.waitFor(1, 5000);
      expect(event).toEqual({ type: 'todo.created', data: created.body.data.todo, id: expect.any(String) });
      expect(events.isListening()).toBe(true);
      expect(events.subscriberCount()).toBe(1);
    } finally {
      stream.source.close();
    }
  });

  (usingRealPostgres() ? it : it.skip)('delivers a change made on replica A to a stream on replica B within 2 s (real Postgres only: LISTEN/NOTIFY)', async () => {
    // On the embedded database the fan-out is in-process (PGlite is one backend session and
    // cannot deliver notifications to a listening connection), so this runs on real Postgres.
    const replicaB = await startApp('todo-api', t.database.url);
    try {
      const stream = openStream(`${replicaB.baseUrl}/api/v1/todos/events`, { 'X-API-Key': key });
      await stream.opened;
      const started = Date.now();
      const created = await t.http.post('/api/v1/todos').set('X-API-Key', key).send({ text: 'across replicas', priority: 2, category: 'x' }).expect(201);
      const [event] = await stream.waitFor(1, 2000);
      expect(Date.now() - started).toBeLessThan(2000);
      expect(event).toEqual({ type: 'todo.created', data: created.body.data.todo, id: expect.any(String) });
      stream.source.close();
      await until(() => replicaB.app.get(TodoEventsService).subscriberCount() === 0);
    } finally {
      await replicaB.close();
    }
  });
  // Last in this file: the drain leaves the app's registry draining.
  it('ends a stream still opening when the drain starts, with a retry hint, like the streams already open', async () => {
    const registry = t.app.get(TodoStreamRegistry);
    const repository = t.app.get(TodosRepository);
    const latestEventId = repository.latestEventId.bind(repository);
    let atStartPosition!: () => void;
    const reachedStartPosition = new Promise<void>((resolve) => (atStartPosition = resolve));
    let continueOpening!: () => void;
    const opening = new Promise<void>((resolve) => (continueOpening = resolve));
    // The stream is held while it reads its start position (past its lease, before it is registered).
    repository.latestEventId = async (owner: string) => {
      atStartPosition();
      await opening;
      return latestEventId(owner);
    };
    let request: http.ClientRequest | undefined;
    try {
      const streamed = new Promise<{ text: string; ended: boolean }>((resolve) => {
        request = http.get(`${t.baseUrl}/api/v1/todos/events`, { headers: { 'X-API-Key': key } }, (response) => {
          let text = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => (text += chunk));
          response.on('end', () => resolve({ text, ended: true }));
          setTimeout(() => resolve({ text, ended: false }), 3000).unref();
        });
      });
      await reachedStartPosition;
      await registry.drain();
      continueOpening();
      const stream = await streamed;
      // Ended by the server (not left open until the grace period cuts its connection), after a retry hint.
      expect(stream.ended).toBe(true);
      const hints = [...stream.text.matchAll(/^retry: ?([0-9]+)$/gm)].map((match) => Number(match[1]));
      expect(hints).toEqual([2000, expect.any(Number)]);
      expect(hints[1]).toBeGreaterThanOrEqual(1000);
      expect(hints[1]).toBeLessThanOrEqual(3000);
      expect(events.subscriberCount()).toBe(0);
    } finally {
      request?.destroy();
      repository.latestEventId = latestEventId;
    }
  });
});
