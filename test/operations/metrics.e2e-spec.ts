import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { setTimeout as sleep } from 'node:timers/promises';
import { createTestDatabase, insertUser, ToggleProxy, type TestDatabase } from '#libs/testing';
import { insertApiKey } from '../support/api-keys.js';
import { bearer, createOwner, createSite, seedFeedback } from '../feedback/feedback-fixtures.js';
import { MetricsScrape, scrape } from '../support/metrics-scrape.js';
import { startApp, type TestApp } from '../support/test-apps.js';
import { StripeTestServer } from '../support/stripe-test-server.js';
import { grantBetaAccess } from '../support/api-access.js';

const METRICS_TOKEN = 'metrics-scraper-token-0123456789';
const MCP_HEADERS = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };

async function waitFor(probe: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await sleep(50);
  }
}

function toolCall(name: string, args: Record<string, unknown>) {
  return { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } };
}

describe('metrics after known traffic', () => {
  let database: TestDatabase;
  let proxy: ToggleProxy;
  const stripe = new StripeTestServer();
  let todo: TestApp;
  let feedback: TestApp;
  let apiKey: string;

  const todoMetrics = () => scrape(todo.baseUrl, METRICS_TOKEN);
  const feedbackMetrics = () => scrape(feedback.baseUrl, METRICS_TOKEN);
  /** How much a counter moved between two scrapes. */
  const moved = (before: MetricsScrape, after: MetricsScrape, name: string, labels: Record<string, string>) => after.value(name, labels) - before.value(name, labels);

  beforeAll(async () => {
    database = await createTestDatabase({ migrated: true });
    proxy = ToggleProxy.forUrl(database.url);
    await proxy.start();
    await stripe.start();
    todo = await startApp('todo-api', proxy.wrap(database.url), {
      METRICS_TOKEN,
      STRIPE_SECRET_KEY: 'sk_test_local',
      STRIPE_WEBHOOK_SECRET: 'whsec_test_local',
      STRIPE_PRICE_ID: 'price_monthly',
      STRIPE_API_BASE: stripe.url,
      STRIPE_TIMEOUT_MS: '1000',
    });
    feedback = await startApp('feedback-export', database.url, { METRICS_TOKEN });
    const user = await insertUser(todo.dataSource);
    await grantBetaAccess(todo.dataSource, user.id);
    apiKey = (await insertApiKey(todo.dataSource, user.id)).key;
  });
  afterAll(async () => {
    proxy?.restore();
    await todo?.close();
    await feedback?.close();
    await stripe.stop();
    await proxy?.stop();
    await database?.drop();
  });

  it('serves /metrics on the public port only with the metrics token, and not at all without METRICS_TOKEN', async () => {
    const none = await todo.http.get('/metrics').expect(401);
    expect(none.body).toEqual({ success: false, error: { code: 'AUTH_REQUIRED', message: expect.any(String) } });
    expect(none.text).not.toContain('http_requests_total');
    const wrong = await todo.http.get('/metrics').set('Authorization', 'Bearer metrics-scraper-token-0123456780').expect(401);
    expect(wrong.text).not.toContain('http_requests_total');
    await todo.http.get('/metrics').set('X-API-Key', apiKey).expect(401);
    await todo.http.get('/metrics').set('Authorization', `Bearer ${apiKey}`).expect(401);

    const ok = await todo.http.get('/metrics').set('Authorization', `Bearer ${METRICS_TOKEN}`).expect(200);
    expect(ok.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    const metrics = new MetricsScrape(ok.text);
    // Default Node process metrics, per app.
    expect(metrics.has('process_cpu_user_seconds_total')).toBe(true);
    expect(metrics.has('nodejs_eventloop_lag_seconds')).toBe(true);

    const unconfigured = await startApp('feedback-export', database.url);
    try {
      const missing = await unconfigured.http.get('/metrics').set('Authorization', `Bearer ${METRICS_TOKEN}`).expect(404);
      expect(missing.body).toEqual({ success: false, error: { code: 'NOT_FOUND', message: expect.any(String) } });
    } finally {
      await unconfigured.close();
    }
  });

  it('counts requests by method, route template and status, never by id, with one label for unmatched routes', async () => {
    const before = await todoMetrics();
    await todo.http.get('/api/v1/todos/987654321').set('X-API-Key', apiKey).expect(404);
    await todo.http.get('/api/v1/no-such-route/123456789').expect(404);
    await todo.http.get('/no-such-page').expect(404);
    await todo.http.get('/api/v1/todos').set('X-API-Key', apiKey).expect(200);
    const after = await todoMetrics();

    expect(moved(before, after, 'http_requests_total', { method: 'GET', route: '/api/v1/todos/:todoId', status: '404' })).toBe(1);
    expect(moved(before, after, 'http_requests_total', { method: 'GET', route: 'unmatched', status: '404' })).toBe(2);
    expect(moved(before, after, 'http_requests_total', { method: 'GET', route: '/api/v1/todos', status: '200' })).toBe(1);
    expect(moved(before, after, 'http_request_duration_seconds_count', { method: 'GET', route: '/api/v1/todos', status: '200' })).toBe(1);
    expect(after.value('http_request_duration_seconds_bucket', { route: '/api/v1/todos', status: '200', le: '+Inf' })).toBe(
      after.value('http_request_duration_seconds_count', { route: '/api/v1/todos', status: '200' }),
    );
    const routes = new Set([...after.text.matchAll(/route="([^"]*)"/g)].map((match) => match[1]));
    expect(routes).toContain('/api/v1/todos/:todoId');
    for (const route of routes) expect(route).toMatch(/^(unmatched|\/[A-Za-z0-9/:.-]*)$/);
    for (const route of routes) expect(route).not.toMatch(/987654321|123456789|no-such/);
  });

  it('counts 429s by limit, from the route limits and from the login limiter', async () => {
    const before = await todoMetrics();
    const forgot = [];
    for (let i = 0; i < 31; i++) forgot.push((await todo.http.post('/api/v1/auth/forgot-password').send({ email: `nobody${i}@example.com` })).status);
    expect(forgot.filter((status) => status === 429)).toHaveLength(1);
    const logins = [];
    for (let i = 0; i < 11; i++) logins.push((await todo.http.post('/api/v1/auth/login').send({ email: 'victim@example.com', password: 'wrong-password' })).status);
    expect(logins.at(-1)).toBe(429);
    const after = await todoMetrics();

    expect(moved(before, after, 'rate_limit_rejections_total', { limit: 'forgot-password' })).toBe(1);
    expect(moved(before, after, 'rate_limit_rejections_total', { limit: 'login-fail' })).toBe(1);
    expect(moved(before, after, 'http_requests_total', { method: 'POST', route: '/api/v1/auth/login', status: '429' })).toBe(1);
  });

  it('counts a 503 during a database cut, and shows the database down until it is back', async () => {
    await todo.http.get('/api/v1/todos').set('X-API-Key', apiKey).expect(200);
    const before = await todoMetrics();
    expect(before.value('dependency_up', { dependency: 'database' })).toBe(1);
    proxy.cut();
    try {
      const refused = await todo.http.get('/api/v1/todos').set('X-API-Key', apiKey);
      expect(refused.status).toBe(503);
      expect(refused.headers['retry-after']).toBe('5');
      const during = await todoMetrics();
      expect(moved(before, during, 'http_requests_total', { method: 'GET', route: '/api/v1/todos', status: '503' })).toBe(1);
      expect(moved(before, during, 'dependency_refused_requests_total', { dependency: 'database' })).toBe(1);
      expect(during.value('dependency_up', { dependency: 'database' })).toBe(0);
    } finally {
      proxy.restore();
    }
    await waitFor(async () => (await todoMetrics()).value('dependency_up', { dependency: 'database' }) === 1, 10_000);
  });

  it('shows open event streams, up when one opens and down when it closes', async () => {
    expect((await todoMetrics()).value('sse_open_streams')).toBe(0);
    const controller = new AbortController();
    const stream = await fetch(`${todo.baseUrl}/api/v1/todos/events`, { headers: { 'X-API-Key': apiKey }, signal: controller.signal });
    expect(stream.status).toBe(200);
    await waitFor(async () => (await todoMetrics()).value('sse_open_streams') === 1, 5000);
    controller.abort();
    await waitFor(async () => (await todoMetrics()).value('sse_open_streams') === 0, 5000);
  });

  it('counts MCP tool calls by tool and outcome in both apps, and feedback rows exported', async () => {
    const todoBefore = await todoMetrics();
    const listed = await todo.http.post('/api/v1/mcp').set(MCP_HEADERS).set('X-API-Key', apiKey).send(toolCall('list_todos', {})).expect(200);
    expect(listed.body.result.isError).toBeUndefined();
    const missing = await todo.http.post('/api/v1/mcp').set(MCP_HEADERS).set('X-API-Key', apiKey).send(toolCall('get_todo', { id: 987654 })).expect(200);
    expect(missing.body.result.isError).toBe(true);
    const todoAfter = await todoMetrics();
    expect(moved(todoBefore, todoAfter, 'mcp_tool_calls_total', { tool: 'list_todos', outcome: 'ok' })).toBe(1);
    expect(moved(todoBefore, todoAfter, 'mcp_tool_calls_total', { tool: 'get_todo', outcome: 'NOT_FOUND' })).toBe(1);

    const owner = await createOwner(feedback);
    const site = await createSite(feedback, owner, 'Metrics');
    await seedFeedback(feedback, owner, site, 3);
    const feedbackBefore = await feedbackMetrics();
    const page = await feedback.http.post('/api/v1/mcp').set(MCP_HEADERS).set(bearer(site.readToken)).send(toolCall('list_feedback', { limit: 2 })).expect(200);
    expect(page.body.result.structuredContent.feedback).toHaveLength(2);
    const denied = await feedback.http
      .post('/api/v1/mcp')
      .set(MCP_HEADERS)
      .set(bearer(site.readToken))
      .send(toolCall('update_feedback_status', { id: '00000000-0000-4000-8000-000000000000', status: 'triaged' }))
      .expect(200);
    expect(denied.body.result.isError).toBe(true);
    const rest = await feedback.http.get('/api/v1/export/feedback?limit=50').set(bearer(site.readToken)).expect(200);
    expect(rest.body.data.feedback).toHaveLength(3);
    const feedbackAfter = await feedbackMetrics();
    expect(moved(feedbackBefore, feedbackAfter, 'mcp_tool_calls_total', { tool: 'list_feedback', outcome: 'ok' })).toBe(1);
    expect(moved(feedbackBefore, feedbackAfter, 'mcp_tool_calls_total', { tool: 'update_feedback_status', outcome: 'INVALID_TOKEN' })).toBe(1);
    expect(moved(feedbackBefore, feedbackAfter, 'feedback_rows_exported_total', { export: 'site' })).toBe(5);
    // Each app keeps its own registry: the todo app's calls are not in the feedback app's series, and the other way round.
    expect(feedbackAfter.has('mcp_tool_calls_total', { tool: 'list_todos' })).toBe(false);
    expect((await todoMetrics()).has('mcp_tool_calls_total', { tool: 'list_feedback' })).toBe(false);
  });

  it('shows the database pools and the password-hashing queue', async () => {
    // A request the store counts itself (a sign-in's attempt limit) uses the counters' pool; API-key lookups count on the main pool.
    const signIn = await todo.http.post('/api/v1/auth/login').send({ email: 'pools@example.com', password: 'wrong-password' });
    expect([401, 429]).toContain(signIn.status);
    const metrics = await todoMetrics();
    expect(metrics.value('db_pool_max', { pool: 'main' })).toBe(5);
    expect(metrics.value('db_pool_connections', { pool: 'main' })).toBeGreaterThanOrEqual(1);
    if (todo.rateLimits.storage === 'postgres') {
      expect(metrics.value('db_pool_max', { pool: 'rate_limit' })).toBe(4);
      expect(metrics.value('db_pool_connections', { pool: 'rate_limit' })).toBeGreaterThanOrEqual(1);
    } else {
      // Counters in Redis: no counter pool, so no series that would read as an idle pool.
      expect(metrics.has('db_pool_max', { pool: 'rate_limit' })).toBe(false);
    }
    expect(metrics.has('db_pool_waiting', { pool: 'main' })).toBe(true);
    expect(metrics.has('password_hashing_queue_depth')).toBe(true);
    expect(metrics.has('password_hashing_in_progress')).toBe(true);
    expect(metrics.has('password_hashing_rejections_total')).toBe(true);
  });

  it('times Stripe calls by path template and counts the failed ones', async () => {
    const user = await insertUser(todo.dataSource);
    const jwt = await todo.accessTokenFor(user.id);
    const before = await todoMetrics();
    await todo.http.post('/api/v1/billing/checkout-session').set(bearer(jwt)).send({}).expect(200);
    stripe.injectFault(/^POST \/v1\/checkout\/sessions$/, { kind: 'error', status: 500 });
    try {
      await todo.http.post('/api/v1/billing/checkout-session').set(bearer(jwt)).send({}).expect(502);
    } finally {
      stripe.clearFaults();
    }
    stripe.injectFault(/^POST \/v1\/checkout\/sessions$/, { kind: 'hang' });
    try {
      await todo.http.post('/api/v1/billing/checkout-session').set(bearer(jwt)).send({}).expect(503);
    } finally {
      stripe.clearFaults();
    }
    const after = await todoMetrics();

    expect(moved(before, after, 'stripe_request_duration_seconds_count', { method: 'POST', path: '/v1/customers', status: '200' })).toBe(1);
    expect(moved(before, after, 'stripe_request_duration_seconds_count', { method: 'POST', path: '/v1/checkout/sessions', status: '200' })).toBe(1);
    expect(moved(before, after, 'stripe_request_failures_total', { method: 'POST', path: '/v1/checkout/sessions', reason: '5xx' })).toBe(1);
    expect(moved(before, after, 'stripe_request_failures_total', { method: 'POST', path: '/v1/checkout/sessions', reason: 'timeout' })).toBe(1);
    expect(moved(before, after, 'stripe_request_duration_seconds_count', { path: '/v1/checkout/sessions', status: 'none' })).toBe(1);
    expect(after.text).not.toMatch(/path="\/v1\/[^"]*(cus|cs)_/);
  });
});
