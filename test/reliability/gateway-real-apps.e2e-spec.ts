/**
 * The nginx gateway of docker/nginx (gateway.test.conf.template, rendered as
 * test/infra/gateway-config.e2e-spec.ts does) in front of the real apps, not stubs:
 * routing by path prefix and by host, X-Request-Id from the client to the app and back,
 * and the client address the gateway forwards used for per-IP rate limits.
 *
 * Client addresses: on Linux all of 127.0.0.0/8 is loopback, so the test's clients connect
 * from 127.0.0.2 and 127.0.0.3 while the gateway reaches the apps from 127.0.0.1. The apps
 * run with TRUST_PROXY=127.0.0.1, i.e. they trust exactly the gateway. nginx appends the
 * address it sees to any X-Forwarded-For the client sent ($proxy_add_x_forwarded_for), and
 * Express takes the right-most untrusted entry, so a client cannot pick its own rate-limit
 * budget by sending X-Forwarded-For. (Trusting a range that also holds clients, e.g.
 * `loopback` here or a private range that clients come from, would let them.)
 *
 * Needs /usr/sbin/nginx (or NGINX_BIN): without it the suite is skipped with one line (fails under CI=true).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { request, type IncomingHttpHeaders } from 'node:http';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { EventSource } from 'eventsource';
import { freePort, insertUser, outsideProgramInstalled } from '#libs/testing';
import { insertApiKey } from '../support/api-keys.js';
import { startApp, startWithDatabase, type TestApp } from '../support/test-apps.js';
import { NGINX_BIN, NGINX_DIR, startTestGateway, type TestGateway } from '../support/test-gateway.js';
import { writeFigures } from './support/figures.js';
import { grantBetaAccess } from '../support/api-access.js';

const HAS_NGINX = outsideProgramInstalled('gateway-real-apps', NGINX_BIN, 'install nginx (Debian: nginx-light) or set NGINX_BIN');
/** The gateway's own address towards the apps: the only proxy they trust. */
const GATEWAY_ADDRESS = '127.0.0.1';
const CLIENT_ONE = '127.0.0.2';
const CLIENT_TWO = '127.0.0.3';

interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  body: any;
}


(HAS_NGINX ? describe : describe.skip)('nginx gateway in front of the real apps', () => {
  let todo: TestApp & { database: { url: string } };
  let feedback: TestApp;
  let nginx: TestGateway | undefined;
  let gatewayPort = 0;
  const figures: Record<string, unknown> = {};
  let requestsThroughGateway = 0;
  /** A request to the gateway from the given client address. */
  function viaGateway(path: string, options: { from?: string; method?: string; headers?: Record<string, string>; body?: unknown } = {}): Promise<Reply> {
    requestsThroughGateway++;
    const payload = options.body === undefined ? undefined : Buffer.from(JSON.stringify(options.body));
    const headers: Record<string, string> = { ...(options.headers ?? {}) };
    if (payload) {
      headers['Content-Type'] = 'application/json';
      headers['Content-Length'] = String(payload.length);
    }
    return new Promise((resolve, reject) => {
      const req = request(
        { host: '127.0.0.1', port: gatewayPort, path, method: options.method ?? 'GET', headers, localAddress: options.from ?? CLIENT_ONE, agent: false },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let body: any = text;
            try {
              body = JSON.parse(text);
            } catch {
              // not JSON (widget.js)
            }
            resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
          });
          res.on('error', reject);
        },
      );
      req.setTimeout(10_000, () => req.destroy(new Error(`timed out: ${path}`)));
      req.on('error', reject);
      req.end(payload);
    });
  }

  beforeAll(async () => {
    todo = await startWithDatabase('todo-api', { TRUST_PROXY: GATEWAY_ADDRESS });
    feedback = await startApp('feedback-export', todo.database.url, { TRUST_PROXY: GATEWAY_ADDRESS });
    gatewayPort = await freePort();
    let rendered = readFileSync(join(NGINX_DIR, 'gateway.test.conf.template'), 'utf8');
    for (const [placeholder, value] of [
      ['__TODO_PORT__', new URL(todo.baseUrl).port],
      ['__FEEDBACK_PORT__', new URL(feedback.baseUrl).port],
      ['__GATEWAY_PORT__', String(gatewayPort)],
    ]) {
      expect(rendered).toContain(placeholder);
      rendered = rendered.split(placeholder).join(value);
    }
    nginx = await startTestGateway({ config: rendered, port: gatewayPort, readyPath: '/gateway/health', label: 'reliability-gateway' });
  }, 60_000);

  afterAll(async () => {
    writeFigures('gateway', { nginx: NGINX_BIN, requestsThroughGateway, ...figures });
    await nginx?.stop();
    await feedback?.close();
    await todo?.close();
  }, 30_000);

  it('routes /todo/ and /feedback/ to the right app, and todo.* / feedback.* hosts likewise', async () => {
    const routes: Array<[string, Record<string, string>, string]> = [
      ['/todo/api/v1/status', {}, 'todo-api'],
      ['/feedback/api/v1/status', {}, 'feedback-export'],
      ['/api/v1/status', { Host: 'todo.example.test' }, 'todo-api'],
      ['/api/v1/status', { Host: 'feedback.example.test' }, 'feedback-export'],
    ];
    for (const [path, headers, service] of routes) {
      const reply = await viaGateway(path, { headers });
      expect({ path, host: headers.Host, status: reply.status, service: reply.body?.data?.service, db: reply.body?.data?.checks?.db }).toEqual({
        path,
        host: headers.Host,
        status: 200,
        service,
        db: 'ok',
      });
    }
    const script = await viaGateway('/widget.js', { headers: { Host: 'feedback.example.test' } });
    expect(script.status).toBe(200);
    expect(script.headers['content-type']).toMatch(/javascript/);
    const unknown = await viaGateway('/todo/api/v1/no-such-route');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ success: false, error: { code: 'NOT_FOUND', message: expect.any(String) } });
    figures.routes = routes.length + 2;
  });

  it('propagates X-Request-Id end to end: the client’s id reaches the app (its log) and comes back once', async () => {
    /**
     * The app's access-log line for a path carries the request id the app used. (Both apps of this process
     * log into the first app's destination, see the report; the path tells the two apart. /api/v1/status is
     * left out of the access log, hence 404 routes.)
     */
    const loggedId = (path: string) =>
      [...todo.logs.lines, ...feedback.logs.lines]
        .map((line) => JSON.parse(line) as { req?: { id?: string; url?: string } })
        .filter((entry) => entry.req?.url === path)
        .map((entry) => entry.req?.id);
    const sent = `rel-gw-${Date.now().toString(36)}`;
    let propagated = 0;
    const reply = await viaGateway('/todo/api/v1/no-such-todo-route', { headers: { 'X-Request-Id': sent } });
    expect(reply.status).toBe(404);
    expect(reply.headers['x-request-id']).toBe(sent);
    expect(loggedId('/api/v1/no-such-todo-route')).toEqual([sent]);
    propagated++;

    // Without one (or with a malformed one), the gateway's generated id is what the app uses and what the client gets.
    for (const [i, headers] of ([{}, { 'X-Request-Id': 'not valid!' }] as Array<Record<string, string>>).entries()) {
      const generated = await viaGateway(`/feedback/api/v1/no-such-feedback-route-${i}`, { headers });
      const id = generated.headers['x-request-id'] as string;
      expect(id).toMatch(/^[0-9a-f]{32}$/);
      expect(loggedId(`/api/v1/no-such-feedback-route-${i}`)).toEqual([id]);
      propagated++;
    }
    figures.requestIdsPropagated = propagated;
  });

  it('rate-limits by the client address the gateway forwards: separate budgets per client, X-Forwarded-For from the client ignored', async () => {
    const owner = await insertUser(todo.dataSource);
    const jwt = await feedback.accessTokenFor(owner.id);
    const site = await viaGateway('/feedback/api/v1/sites', { method: 'POST', headers: { Authorization: `Bearer ${jwt}` }, body: { name: 'Gateway' } });
    expect(site.status).toBe(201);
    const post = (from: string, i: number, headers: Record<string, string> = {}) =>
      viaGateway('/feedback/api/v1/widget/feedback', {
        from,
        method: 'POST',
        headers,
        body: { siteKey: site.body.data.siteKey, type: 'feedback', message: `via gateway ${from} #${i}`, rating: null, pageUrl: 'https://example.test/' },
      });

    const first: number[] = [];
    for (let i = 0; i < 20; i++) first.push((await post(CLIENT_ONE, i)).status);
    expect(first).toEqual(Array(20).fill(201));
    const limited = await post(CLIENT_ONE, 20);
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe('RATE_LIMITED');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    // A forged X-Forwarded-For does not buy a new budget: nginx appends the real address, the app trusts only the gateway.
    const forged = await post(CLIENT_ONE, 21, { 'X-Forwarded-For': '198.51.100.7' });
    figures.forgedForwardedForFailures = forged.status === 429 ? 0 : 1;
    expect(forged.status).toBe(429);
    // Another client behind the same gateway has its own budget.
    expect((await post(CLIENT_TWO, 0)).status).toBe(201);
    expect((await post(CLIENT_TWO, 1, { 'X-Forwarded-For': '198.51.100.7' })).status).toBe(201);

    const keys = await todo.rateLimits.keys('widget-feedback:');
    expect(keys).toEqual([`widget-feedback:ip:${CLIENT_ONE}`, `widget-feedback:ip:${CLIENT_TWO}`]);
    const stored = await todo.dataSource.query(`SELECT count(*)::int AS n FROM feedback WHERE owner_id = $1`, [owner.id]);
    expect(stored[0].n).toBe(22);

    // The same address is what a session records at sign-in through the gateway.
    const signIn = await viaGateway('/todo/api/v1/auth/login', { from: CLIENT_TWO, method: 'POST', headers: { 'X-Forwarded-For': '203.0.113.9' }, body: { email: owner.email, password: owner.password } });
    expect(signIn.status).toBe(200);
    const sessions = await viaGateway('/api/v1/auth/sessions', { headers: { Host: 'todo.example.test', Authorization: `Bearer ${signIn.body.data.token}` } });
    expect(sessions.body.data.sessions.map((s: { ipAddress: string }) => s.ipAddress)).toContain(CLIENT_TWO);
    expect(JSON.stringify(sessions.body)).not.toContain('203.0.113.9');
    Object.assign(figures, { forwardedIpClients: keys.length, rowsChecked: stored[0].n });
  });

  it('carries a realtime stream and API-key writes through the gateway', async () => {
    const user = await insertUser(todo.dataSource);
    await grantBetaAccess(todo.dataSource, user.id);
    const { key } = await insertApiKey(todo.dataSource, user.id);
    const received: string[] = [];
    const source = new EventSource(`http://127.0.0.1:${gatewayPort}/todo/api/v1/todos/events`, {
      fetch: (input, init) => fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), 'X-API-Key': key } }),
    });
    source.addEventListener('todo.created', (event) => received.push(JSON.parse(event.data).text));
    try {
      await new Promise<void>((resolve, reject) => {
        source.onopen = () => resolve();
        source.onerror = () => reject(new Error('stream through the gateway failed'));
      });
      const created = await viaGateway('/todo/api/v1/todos', { method: 'POST', headers: { 'X-API-Key': key }, body: { text: 'through nginx', priority: 2, category: 'gw' } });
      expect(created.status).toBe(201);
      const deadline = Date.now() + 3_000;
      while (!received.includes('through nginx') && Date.now() < deadline) await sleep(20);
    } finally {
      source.close();
    }
    expect(received).toEqual(['through nginx']);
    figures.realtimeEventsThroughGateway = received.length;
  });
});
