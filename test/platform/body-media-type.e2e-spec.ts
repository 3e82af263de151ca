/**
 * 415 UNSUPPORTED_MEDIA_TYPE: a body of a type the route does not take (form-encoded, text/plain,
 * none named) is refused in the error envelope instead of reaching validation unread (it used to
 * answer 400 "text is required"). Routes declare what they take with @AcceptsBody (default JSON):
 * the one-click unsubscribe takes form bodies, oidc-provider's endpoints and the MCP endpoint check
 * their own. A request without a body is never refused. The OpenAPI documents list 415 on exactly
 * the routes that can answer it, derived from the route table.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { listRoutes, refusesOtherBodies, type RouteEntry } from '#libs/common';
import { insertUser } from '#libs/testing';
import { insertApiKey } from '../support/api-keys.js';
import { grantBetaAccess } from '../support/api-access.js';
import { startApp, startWithDatabase, type TestApp } from '../support/test-apps.js';

/** A route's path with every parameter filled in (the 415 comes before any parameter is read). */
const concrete = (path: string) => path.replace(/:[A-Za-z0-9_]+/g, 'x').replace(/\*[A-Za-z0-9_]+/g, 'x');

describe('request body media types (415 UNSUPPORTED_MEDIA_TYPE)', () => {
  let todo: Awaited<ReturnType<typeof startWithDatabase>>;
  let feedback: TestApp;
  let apiKey: string;

  beforeAll(async () => {
    todo = await startWithDatabase('todo-api');
    feedback = await startApp('feedback-export', todo.database.url);
    const user = await insertUser(todo.dataSource);
    await grantBetaAccess(todo.dataSource, user.id);
    apiKey = (await insertApiKey(todo.dataSource, user.id)).key;
  }, 60_000);

  afterAll(async () => {
    await feedback?.close();
    await todo?.close();
  });

  it('refuses a form-encoded, text/plain or untyped body on a JSON route with 415 in the envelope, and creates nothing', async () => {
    const before = Number((await todo.dataSource.query(`SELECT count(*)::int AS n FROM todos`))[0].n);
    const form = await todo.http.post('/api/v1/todos').set('X-API-Key', apiKey).type('form').send('text=Buy+milk&priority=1&category=x').expect(415);
    expect(form.body).toEqual({ success: false, error: { code: 'UNSUPPORTED_MEDIA_TYPE', message: expect.stringContaining('application/json') } });
    expect(form.body.error.message).toContain('application/x-www-form-urlencoded');
    const text = await todo.http.post('/api/v1/todos').set('X-API-Key', apiKey).set('Content-Type', 'text/plain').send('{"text":"Buy milk","priority":1,"category":"x"}').expect(415);
    expect(text.body.error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    expect(text.headers['x-request-id']).toBeDefined();
    const untyped = await fetch(`${todo.baseUrl}/api/v1/todos`, { method: 'POST', headers: { 'X-API-Key': apiKey }, body: new Uint8Array(Buffer.from('{"text":"x"}')) });
    expect(untyped.status).toBe(415);
    expect(((await untyped.json()) as { error: { code: string } }).error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    expect(Number((await todo.dataSource.query(`SELECT count(*)::int AS n FROM todos`))[0].n)).toBe(before);
  });

  it('takes JSON with a charset or a +json type, and a request without a body is not a 415', async () => {
    await todo.http.post('/api/v1/todos').set('X-API-Key', apiKey).set('Content-Type', 'application/json; charset=utf-8').send(JSON.stringify({ text: 'Charset', priority: 1, category: 'x' })).expect(201);
    const empty = await todo.http.post('/api/v1/todos').set('X-API-Key', apiKey).expect(400);
    expect(empty.body.error.code).toBe('VALIDATION_ERROR');
  });

  it('keeps the one-click unsubscribe (form-encoded or multipart), OAuth and MCP bodies working, and refuses text/plain there', async () => {
    // An unknown token answers the 404 page: the form body itself got through.
    const form = await feedback.http.post(`/unsubscribe/${'A'.repeat(64)}`).type('form').send('List-Unsubscribe=One-Click');
    expect(form.status).toBe(404);
    expect(form.headers['content-type']).toMatch(/text\/html/);
    const multipart = await feedback.http.post(`/unsubscribe/${'A'.repeat(64)}`).field('List-Unsubscribe', 'One-Click');
    expect(multipart.status).toBe(404);
    const plain = await feedback.http.post(`/unsubscribe/${'A'.repeat(64)}`).set('Content-Type', 'text/plain').send('List-Unsubscribe=One-Click').expect(415);
    expect(plain.body.error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    // oidc-provider reads its own form bodies: an unknown client is its own OAuth error, not a 415.
    const token = await todo.http.post('/oauth/token').type('form').send('grant_type=client_credentials&client_id=nobody');
    expect(token.status).not.toBe(415);
    expect(token.body.error).toBe('invalid_client');
    // The MCP endpoint keeps its JSON-RPC 415.
    const mcp = await todo.http.post('/api/v1/mcp').set('Authorization', `Bearer ${apiKey}`).set('Accept', 'application/json, text/event-stream').set('Content-Type', 'text/plain').send('{}');
    expect(mcp.status).toBe(415);
    expect(mcp.body).toMatchObject({ jsonrpc: '2.0', error: { code: -32000, message: expect.stringContaining('Unsupported Media Type') } });
  });

  it('answers 415 on every route the table says refuses other bodies, and documents 415 on exactly those', async () => {
    for (const t of [todo, feedback]) {
      const routes = listRoutes(t.app);
      const document = (await t.http.get('/api/v1/openapi.json').expect(200)).body as { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
      const refusing = routes.filter((route) => refusesOtherBodies(route.method, route.bodyMediaTypes ?? []));
      expect(refusing.length).toBeGreaterThan(10);
      const wrong: string[] = [];
      for (const route of refusing) {
        const res = await t.http[route.method.toLowerCase() as 'post'](concrete(route.path)).set('Content-Type', 'text/plain').send('hello');
        if (res.status !== 415 || res.body.error?.code !== 'UNSUPPORTED_MEDIA_TYPE') wrong.push(`${route.method} ${route.path} -> ${res.status}`);
      }
      expect(wrong).toEqual([]);
      const documented = (route: RouteEntry) => document.paths[route.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}')]?.[route.method.toLowerCase()];
      for (const route of routes) {
        const operation = documented(route);
        if (!operation) continue; // left out of the document
        const expected = refusesOtherBodies(route.method, route.bodyMediaTypes ?? []);
        if (expected) expect({ route: `${route.method} ${route.path}`, has415: '415' in operation.responses }).toEqual({ route: `${route.method} ${route.path}`, has415: true });
        else if (route.method === 'GET') expect({ route: `${route.method} ${route.path}`, has415: '415' in operation.responses }).toEqual({ route: `${route.method} ${route.path}`, has415: false });
      }
    }
  });
});
