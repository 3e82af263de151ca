import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { insertUser, until } from '#libs/testing';
import { AppTracing } from '#libs/tracing';
import { startApp, startWithDatabase, type TestApp } from '../support/test-apps.js';
import { strongPassword, uniqueEmail } from '../auth/helpers.js';
import { StripeTestServer } from '../support/stripe-test-server.js';

const TURNSTILE_SECRET = 'tracing-test-turnstile-secret-0123';

interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
}

const SERVER = 2;
const CLIENT = 3;

/** A plain node:http server as the OTLP/HTTP collector: collects what arrives at POST /v1/traces (the exporter's JSON encoding). */
class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  readonly contentTypes: string[] = [];
  private server?: Server;
  url = '';

  async start(): Promise<void> {
    this.server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => (body += chunk));
      request.on('end', () => {
        if (request.method === 'POST' && request.url === '/v1/traces') {
          this.contentTypes.push(String(request.headers['content-type']));
          for (const resourceSpans of JSON.parse(body).resourceSpans ?? []) {
            const service = resourceSpans.resource.attributes.find((attribute: { key: string }) => attribute.key === 'service.name')?.value.stringValue;
            for (const scope of resourceSpans.scopeSpans) {
              for (const span of scope.spans) {
                const attributes = Object.fromEntries(span.attributes.map((attribute: { key: string; value: Record<string, unknown> }) => [attribute.key, Object.values(attribute.value)[0]]));
                this.spans.push({ service, traceId: span.traceId, spanId: span.spanId, parentSpanId: span.parentSpanId ?? '', name: span.name, kind: span.kind, attributes });
              }
            }
          }
        }
        response.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', () => resolve()));
    this.url = `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
  }

  inTrace(traceId: string): ReceivedSpan[] {
    return this.spans.filter((span) => span.traceId === traceId);
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

/** The bot-check verifier stand-in: passes every token but `boom` (500), keeps the headers it was sent. */
class Verifier {
  readonly headers: IncomingHttpHeaders[] = [];
  private server?: Server;
  url = '';

  async start(): Promise<void> {
    this.server = createServer((request, response) => {
      this.headers.push(request.headers);
      let body = '';
      request.on('data', (chunk) => (body += chunk));
      request.on('end', () => {
        if (new URLSearchParams(body).get('response') === 'boom') response.writeHead(500).end('oops');
        else response.writeHead(200, { 'Content-Type': 'application/json' }).end('{"success":true}');
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', () => resolve()));
    this.url = `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}/siteverify`;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

/** The span and its ancestors among the received spans, nearest first. */
function ancestry(spans: ReceivedSpan[], span: ReceivedSpan | undefined): ReceivedSpan[] {
  const chain: ReceivedSpan[] = [];
  for (let current = span; current; current = spans.find((candidate) => candidate.spanId === current!.parentSpanId)) chain.push(current);
  return chain;
}

function accessLinesOf(t: TestApp): Array<Record<string, any>> {
  return t.logs.lines.map((line) => JSON.parse(line) as Record<string, any>).filter((line) => line.req?.url === '/api/v1/auth/signup');
}

describe('OpenTelemetry traces (OTLP/HTTP)', () => {
  const receiver = new OtlpReceiver();
  const verifier = new Verifier();
  const stripe = new StripeTestServer();
  let traced: TestApp & { database: { url: string } };
  let untraced: TestApp;

  beforeAll(async () => {
    await receiver.start();
    await verifier.start();
    await stripe.start();
    const env = {
      TURNSTILE_SECRET_KEY: TURNSTILE_SECRET,
      TURNSTILE_VERIFY_URL: verifier.url,
      LOG_LEVEL: 'info',
      STRIPE_SECRET_KEY: 'sk_test_local',
      STRIPE_WEBHOOK_SECRET: 'whsec_tracing_test',
      STRIPE_PRICE_ID: 'price_tracing_test',
      STRIPE_API_BASE: stripe.url,
    };
    traced = await startWithDatabase('todo-api', { ...env, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: '50' });
    // Another replica on the same database, OTEL_EXPORTER_OTLP_ENDPOINT unset.
    untraced = await startApp('todo-api', traced.database.url, env);
  });
  afterAll(async () => {
    await untraced?.close();
    await traced?.close();
    await verifier.stop();
    await stripe.stop();
    await receiver.stop();
  });

  it('follows a request from its incoming traceparent through the app to the database, Redis and the bot-check verifier, and logs its ids', async () => {
    const traceId = randomBytes(16).toString('hex');
    const callerSpanId = randomBytes(8).toString('hex');
    const sentTo = verifier.headers.length;
    const password = strongPassword();
    await traced.http
      .post('/api/v1/auth/signup')
      .set('traceparent', `00-${traceId}-${callerSpanId}-01`)
      .send({ email: uniqueEmail('traced'), password, passwordConfirm: password, turnstileToken: 'pass' })
      .expect(201);

    // The server span ends when the response closes; the batch goes out 50 ms later. Work the request started may end
    // after it (the sign-up's mail in the background): its spans can arrive before the transaction span they sit in,
    // so the trace is read once every span's parent has arrived (CI once read a statement whose parent had not).
    const complete = (inTrace: ReceivedSpan[]) => inTrace.every((span) => span.parentSpanId === callerSpanId || inTrace.some((parent) => parent.spanId === span.parentSpanId));
    let spans = receiver.inTrace(traceId);
    await until(() => {
      spans = receiver.inTrace(traceId);
      return spans.some((span) => span.kind === SERVER) && complete(spans);
    }, 10_000, 'the server span, and every span with its parent');
    expect(receiver.contentTypes[0]).toBe('application/json');
    const server = spans.find((span) => span.kind === SERVER)!;
    expect(server).toMatchObject({ service: 'todo-api', parentSpanId: callerSpanId, name: 'POST /api/v1/auth/signup' });
    expect(server.attributes).toMatchObject({ 'http.route': '/api/v1/auth/signup', 'http.response.status_code': 201 });

    // app -> pg: statements (the user's INSERT among them) are spans of the same trace, under the server span.
    const statements = spans.filter((span) => span.attributes['db.system.name'] === 'postgresql' && span.name !== 'transaction');
    expect(statements.map((span) => span.name)).toContain('INSERT');
    for (const statement of statements) expect(ancestry(spans, statement).at(-1)).toBe(server);
    expect(statements.some((statement) => ancestry(spans, statement)[1]?.name === 'transaction')).toBe(true);

    if (traced.config.redisUrl) {
      const commands = spans.filter((span) => span.attributes['db.system.name'] === 'redis');
      expect(commands.map((span) => span.name)).toContain('rateLimitHit');
      for (const command of commands) expect(ancestry(spans, command).at(-1)).toBe(server);
    }

    // The outgoing call carries the trace on: its traceparent names the client span of this trace.
    const outgoing = verifier.headers.slice(sentTo);
    expect(outgoing).toHaveLength(1);
    const [, sentTraceId, sentParent] = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/.exec(String(outgoing[0].traceparent)) ?? [];
    expect(sentTraceId).toBe(traceId);
    const client = spans.find((span) => span.spanId === sentParent);
    expect(client).toMatchObject({ kind: CLIENT, name: 'POST' });
    expect(ancestry(spans, client).at(-1)).toBe(server);

    // The access line names the trace and the server span.
    await until(() => accessLinesOf(traced).some((line) => line.trace_id === traceId), 2000, 'the access line');
    expect(accessLinesOf(traced).find((line) => line.trace_id === traceId)).toMatchObject({ span_id: server.spanId, res: { statusCode: 201 } });
  });

  it('Stripe calls carry the trace on, only from the traced replica', async () => {
    const user = await insertUser(traced.dataSource);
    const traceId = randomBytes(16).toString('hex');
    const sentTo = stripe.requests.length;
    await traced.http
      .post('/api/v1/billing/checkout-session')
      .set('Authorization', `Bearer ${await traced.accessTokenFor(user.id)}`)
      .set('traceparent', `00-${traceId}-${randomBytes(8).toString('hex')}-01`)
      .expect(200);
    const calls = stripe.requests.slice(sentTo);
    expect(calls.length).toBeGreaterThan(0);
    for (const call of calls) expect(call.traceparent).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));

    const untracedCalls = stripe.requests.length;
    await untraced.http
      .post('/api/v1/billing/checkout-session')
      .set('Authorization', `Bearer ${await untraced.accessTokenFor((await insertUser(traced.dataSource)).id)}`)
      .set('traceparent', `00-${randomBytes(16).toString('hex')}-${randomBytes(8).toString('hex')}-01`)
      .expect(200);
    expect(stripe.requests.length).toBeGreaterThan(untracedCalls);
    expect(stripe.requests.slice(untracedCalls).filter((call) => call.traceparent !== undefined)).toEqual([]);
  });

  it("a service's own line logged while handling a traced request carries its trace_id and span_id", async () => {
    const traceId = randomBytes(16).toString('hex');
    const password = strongPassword();
    await traced.http
      .post('/api/v1/auth/signup')
      .set('traceparent', `00-${traceId}-${randomBytes(8).toString('hex')}-01`)
      .send({ email: uniqueEmail('traced'), password, passwordConfirm: password, turnstileToken: 'boom' })
      .expect(503);
    await until(() => receiver.inTrace(traceId).some((span) => span.kind === SERVER), 10_000, 'the server span');
    const server = receiver.inTrace(traceId).find((span) => span.kind === SERVER)!;
    const lines = traced.logs.lines.map((line) => JSON.parse(line) as Record<string, any>);
    const warning = lines.find((line) => line.msg === 'Bot-challenge verifier unavailable; signup refused' && line.trace_id === traceId);
    expect(warning).toMatchObject({ level: 40, context: 'TurnstileVerifier', span_id: server.spanId });
  });

  it('without OTEL_EXPORTER_OTLP_ENDPOINT: no span exported, no traceparent sent on, no trace ids logged', async () => {
    expect(untraced.app.get(AppTracing).enabled).toBe(false);
    const traceId = randomBytes(16).toString('hex');
    const sentTo = verifier.headers.length;
    const password = strongPassword();
    await untraced.http
      .post('/api/v1/auth/signup')
      .set('traceparent', `00-${traceId}-${randomBytes(8).toString('hex')}-01`)
      .send({ email: uniqueEmail('untraced'), password, passwordConfirm: password, turnstileToken: 'pass' })
      .expect(201);
    const outgoing = verifier.headers.slice(sentTo);
    expect(outgoing).toHaveLength(1);
    expect(outgoing[0].traceparent).toBeUndefined();
    await until(() => accessLinesOf(untraced).length > 0, 2000, 'the access line');
    expect(accessLinesOf(untraced).filter((line) => 'trace_id' in line || 'span_id' in line)).toEqual([]);
    // Whatever the traced replica still buffers is out; none of it is this request's.
    await traced.app.get(AppTracing).flush();
    expect(receiver.inTrace(traceId)).toEqual([]);
    expect(receiver.spans.filter((span) => span.service !== 'todo-api')).toEqual([]);
  });
});
