import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { pino } from 'pino';
import { loadConfig } from '#libs/config';
import { LogCapture, until } from '#libs/testing';
import { NestPinoLogger } from './nest-pino-logger.js';
import { createRequestLogging, prettyLines } from './request-logging.js';

interface Line {
  level: number;
  service: string;
  msg: string;
  context?: string;
  req?: { id: string; method: string; url: string };
  res?: { statusCode: number };
  responseTime?: number;
  err?: { message: string; stack?: string };
  [field: string]: unknown;
}

/** An app's logging in front of a tiny server that answers the status named in the path. */
async function serve(service: string, logLevel = 'info') {
  const logs = new LogCapture();
  const logging = createRequestLogging(loadConfig({ NODE_ENV: 'test', LOG_LEVEL: logLevel }), service, logs, { secretPathPrefixes: ['/q/', '/api/v1/share/'] });
  const server = http.createServer((request: IncomingMessage, response: ServerResponse) =>
    logging(request, response, () => {
      response.statusCode = Number(/\/(\d{3})/.exec(request.url ?? '')?.[1] ?? 200);
      response.end('{}');
    }),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const lines = () => logs.lines.map((line) => JSON.parse(line) as Line);
  return { logging, server, base, lines };
}

describe('request logging', () => {
  let todo: Awaited<ReturnType<typeof serve>>;
  let feedback: Awaited<ReturnType<typeof serve>>;

  beforeAll(async () => {
    todo = await serve('todo-api');
    feedback = await serve('feedback-export', 'warn');
  });
  afterAll(async () => {
    for (const app of [todo, feedback]) await new Promise((resolve) => app?.server.close(resolve));
  });

  it('writes one access line per request with the request id it answered, the path without its query, status and time', async () => {
    const res = await fetch(`${todo.base}/api/v1/todos/201?access_token=secret-token-value`, { headers: { 'X-Request-Id': 'gw-123', Authorization: 'Bearer hidden-bearer' } });
    expect(res.headers.get('x-request-id')).toBe('gw-123');
    const fresh = await fetch(`${todo.base}/api/v1/things`, { headers: { 'X-Request-Id': 'not valid!' } });
    const generated = fresh.headers.get('x-request-id')!;
    expect(generated).toMatch(/^[0-9a-f-]{36}$/);
    await sleep(20);
    const access = todo.lines().filter((line) => line.req);
    expect(access).toEqual([
      expect.objectContaining({ level: 30, service: 'todo-api', msg: 'request completed', req: expect.objectContaining({ id: 'gw-123', method: 'GET', url: '/api/v1/todos/201' }), res: { statusCode: 201 }, responseTime: expect.any(Number) }),
      expect.objectContaining({ req: expect.objectContaining({ id: generated, url: '/api/v1/things' }), res: { statusCode: 200 } }),
    ]);
    expect(JSON.stringify(todo.lines())).not.toMatch(/secret-token-value|hidden-bearer/);
  });

  it('hides share-link tokens in logged paths and leaves health checks, probes and the metrics scrape out', async () => {
    await fetch(`${todo.base}/q/sharetoken123456`);
    await fetch(`${todo.base}/api/v1/share/sharetoken123456/answers`);
    for (const path of ['/api/v1/status', '/livez', '/readyz', '/metrics']) await fetch(`${todo.base}${path}`);
    await sleep(20);
    const urls = todo.lines().flatMap((line) => (line.req ? [line.req.url] : []));
    expect(urls).toEqual(expect.arrayContaining(['/q/[redacted]', '/api/v1/share/[redacted]/answers']));
    for (const path of ['/api/v1/status', '/livez', '/readyz', '/metrics']) expect(urls).not.toContain(path);
    expect(JSON.stringify(todo.lines())).not.toContain('sharetoken123456');
  });

  it('hides share-link tokens whatever the spelling of the prefix: case, percent-encoding, empty segments', async () => {
    const spellings = ['/Q/sharetokenABCDEF', '/API/V1/Share/sharetokenABCDEF/answers/1', '//q/sharetokenABCDEF', '/%71/sharetokenABCDEF', '/api//v1/%73hare/sharetokenABCDEF'];
    for (const path of spellings) await fetch(`${todo.base}${path}`);
    await sleep(20);
    const urls = todo.lines().flatMap((line) => (line.req ? [line.req.url] : []));
    expect(urls).toEqual(expect.arrayContaining(['/Q/[redacted]', '/API/V1/Share/[redacted]/answers/1', '//q/[redacted]', '/%71/[redacted]', '/api//v1/%73hare/[redacted]']));
    expect(JSON.stringify(todo.lines())).not.toContain('sharetokenABCDEF');
  });

  it('logs failures at error level even when the level hides ordinary lines, each app into its own destination', async () => {
    await fetch(`${feedback.base}/api/v1/export/feedback/200`);
    await fetch(`${feedback.base}/api/v1/export/feedback/500`);
    await fetch(`${feedback.base}/api/v1/export/feedback/502`);
    await until(() => feedback.lines().length >= 2, 2000, 'the two failure lines');
    expect(feedback.lines()).toEqual([
      expect.objectContaining({ level: 50, service: 'feedback-export', msg: 'request failed', res: { statusCode: 500 } }),
      expect.objectContaining({ level: 50, service: 'feedback-export', msg: 'request failed', res: { statusCode: 502 } }),
    ]);
    expect(todo.lines().some((line) => line.service !== 'todo-api' || line.req?.url?.startsWith('/api/v1/export'))).toBe(false);
  });

  it('logs a 503 (a refusal: outage, full queue, drain) as an ordinary access line, not an error', async () => {
    const before = todo.lines().length;
    await fetch(`${todo.base}/api/v1/todos/503`);
    await fetch(`${feedback.base}/api/v1/export/feedback/503`);
    await sleep(20);
    expect(feedback.lines().some((line) => line.res?.statusCode === 503)).toBe(false);
    await until(() => todo.lines().length > before, 2000, 'the refusal\'s access line');
    expect(todo.lines().slice(before)).toEqual([expect.objectContaining({ level: 30, msg: 'request refused', res: { statusCode: 503 } })]);
  });

  it('carries Nest logs into the same JSON lines: context, pino-style objects, errors with their stack', async () => {
    const before = todo.lines().length;
    const nest = new NestPinoLogger(todo.logging.logger);
    // Nest's Logger('Context') appends its context as the last argument when it calls the app's logger.
    nest.log('Started', 'TodoEventsService');
    nest.warn({ eventId: 'evt_1' }, 'Stripe event ignored', 'Billing');
    nest.error(new Error('boom'), 'Billing');
    nest.error('Unhandled', 'Error: Unhandled\n    at somewhere (file.js:1:1)', 'ExceptionsHandler');
    nest.debug('not at info level', 'Billing');
    const lines = todo.lines().slice(before);
    expect(lines).toEqual([
      expect.objectContaining({ level: 30, context: 'TodoEventsService', msg: 'Started' }),
      expect.objectContaining({ level: 40, context: 'Billing', eventId: 'evt_1', msg: 'Stripe event ignored' }),
      expect.objectContaining({ level: 50, context: 'Billing', err: expect.objectContaining({ message: 'boom' }) }),
      expect.objectContaining({ level: 50, context: 'ExceptionsHandler', msg: 'Unhandled', err: expect.objectContaining({ stack: expect.stringContaining('at somewhere') }) }),
    ]);
  });

  it('never logs a secret header: those of every app, and those the app names (secretHeaders, in any case)', () => {
    const capture = new LogCapture();
    const { logger } = createRequestLogging(loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'info' }), 'some-app', capture, { secretHeaders: ['X-Some-App-Key'] });
    const headers = { authorization: 'Bearer secret-1', cookie: 'secret-2', 'x-some-app-key': 'secret-3', 'x-other': 'shown' };
    logger.info({ req: { headers }, res: { headers: { 'set-cookie': 'secret-4' } } }, 'a line with headers');
    expect(JSON.parse(capture.lines[0])).toEqual(
      expect.objectContaining({
        req: { headers: { authorization: '[redacted]', cookie: '[redacted]', 'x-some-app-key': '[redacted]', 'x-other': 'shown' } },
        res: { headers: { 'set-cookie': '[redacted]' } },
      }),
    );
  });

  it("writes Nest's start-up lines (modules, routes) at debug, so a start at info shows none of them", () => {
    const capture = new LogCapture();
    const quiet = new NestPinoLogger(createRequestLogging(loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'info' }), 'todo-api', capture).logger);
    const chatty = new LogCapture();
    const verbose = new NestPinoLogger(createRequestLogging(loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'debug' }), 'todo-api', chatty).logger);
    for (const nest of [quiet, verbose]) {
      nest.log('Mapped {/api/v1/todos, GET} route', 'RouterExplorer');
      nest.log('TodosModule dependencies initialized', 'InstanceLoader');
      nest.warn('A data source with the default name is already registered.', 'DataSourceNameRegistry');
      nest.log('Lifetime beta access granted', 'BetaAccessService');
    }
    expect(capture.lines.map((line) => JSON.parse(line).msg)).toEqual(['Lifetime beta access granted']);
    expect(chatty.lines.map((line) => JSON.parse(line).level)).toEqual([20, 20, 20, 30]);
  });

  it('LOG_FORMAT=pretty writes one readable line per entry: time, level, service, context, message; access lines as method, path, status, time', () => {
    const capture = new LogCapture();
    const logger = pino({ base: { service: 'todo-api' } }, prettyLines(capture));
    logger.info({ context: 'BetaAccessService', userId: 'u-1' }, 'Lifetime beta access granted');
    logger.info({ req: { id: 'req-1', method: 'GET', url: '/nope' }, res: { statusCode: 404 }, responseTime: 4 }, 'request completed');
    expect(capture.lines).toEqual([
      expect.stringMatching(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: todo-api BetaAccessService: Lifetime beta access granted \{"userId":"u-1"\}$/),
      expect.stringMatching(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: todo-api: request completed GET \/nope 404 in 4 ms, request req-1$/),
    ]);
  });
});
