/**
 * One log shape in production (issue 32): the built services, started as their containers start
 * them (NODE_ENV=production), write nothing but pino JSON lines of one shape (numeric level, epoch
 * time, service (the launcher's lines name the process's services), message) on standard output and standard error: the start, requests (a 4xx carries
 * its error code, every access line its request id), the authorization server (oidc-provider's console output), the
 * drain after SIGTERM. A failed start (a bad variable, an unreachable database) is one JSON error
 * line with the cause and exit 1.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, freePort, type TestDatabase } from '#libs/testing';
import { buildServices, type BuiltServices } from '../support/built-services.js';
import { startChild } from '../support/child-service.js';
import { TEST_JWT_SECRET } from '../support/test-apps.js';

interface Line {
  level: number;
  time: number;
  service: string;
  msg: string;
  req?: { id: string; method: string; url: string };
  res?: { statusCode: number };
  errorCode?: string;
  err?: { message: string };
  [field: string]: unknown;
}

/** Every line of the output as JSON of the one shape; the first line that is not names itself in the failure. */
function parseLines(output: string): Line[] {
  return output
    .split('\n')
    .filter((line) => line !== '')
    .map((text) => {
      let line: Line;
      try {
        line = JSON.parse(text) as Line;
      } catch {
        throw new Error(`not a JSON line: ${text}`);
      }
      expect({ line: text, level: typeof line.level, time: typeof line.time, service: line.service, msg: typeof line.msg }).toEqual({ line: text, level: 'number', time: 'number', service: expect.stringMatching(/^(todo-api|feedback-export|todo-api,feedback-export)$/), msg: 'string' });
      return line;
    });
}

describe('production logs: one JSON shape', () => {
  let built: BuiltServices;
  let database: TestDatabase;
  let dataDir: string;

  const productionEnv = (overrides: Record<string, string>) => ({
    NODE_ENV: 'production',
    DATABASE_URL: database.url,
    DATA_DIR: dataDir,
    JWT_SECRET: TEST_JWT_SECRET,
    PUBLIC_BASE_URL: 'https://todo.example.test',
    FEEDBACK_PUBLIC_BASE_URL: 'https://feedback.example.test',
    HOST: '127.0.0.1',
    SHUTDOWN_GRACE_MS: '1000',
    ...overrides,
  });

  beforeAll(async () => {
    built = buildServices();
    database = await createTestDatabase();
    dataDir = mkdtempSync(join(tmpdir(), 'production-logs-'));
  }, 120_000);

  afterAll(async () => {
    await database?.drop();
    for (const path of [dataDir, built?.root]) if (path) rmSync(path, { recursive: true, force: true });
  });

  it('start, requests (a 4xx with its error code), the authorization server and the drain: every line one JSON shape', async () => {
    const [todoPort, feedbackPort] = [await freePort(), await freePort()];
    let code: string | undefined;
    // At debug, so Nest's start-up lines and library notices are in the output too.
    const service = startChild(built.entries.both, productionEnv({ TODO_API_PORT: String(todoPort), FEEDBACK_API_PORT: String(feedbackPort), LOG_LEVEL: 'debug' }));
    try {
      await service.ready([todoPort, feedbackPort]);
      const todo = `http://127.0.0.1:${todoPort}`;
      expect((await fetch(`${todo}/`, { headers: { Accept: 'application/json' } })).status).toBe(200);
      const unauthorized = await fetch(`${todo}/api/v1/todos`, { headers: { 'X-Request-Id': 'prod-logs-401' } });
      expect(unauthorized.status).toBe(401);
      code = ((await unauthorized.json()) as { error: { code: string } }).error.code;
      expect((await fetch(`http://127.0.0.1:${feedbackPort}/api/v1/no-such-route`)).status).toBe(404);
      // Dynamic client registration: a JSON body oidc-provider reads itself.
      const registration = await fetch(`${todo}/oauth/register`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ redirect_uris: ['http://127.0.0.1:9/callback'], client_name: 'log shape' }) });
      expect(registration.status).toBe(201);
    } finally {
      expect(await service.stop()).toEqual({ code: 0, signal: null });
    }
    expect(service.stderr()).toBe('');
    const lines = parseLines(service.stdout());
    const access = lines.filter((line) => line.req);
    expect(access).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ service: 'todo-api', req: expect.objectContaining({ id: 'prod-logs-401', url: '/api/v1/todos' }), res: { statusCode: 401 }, errorCode: code }),
        expect.objectContaining({ service: 'feedback-export', res: { statusCode: 404 }, errorCode: 'NOT_FOUND' }),
        expect.objectContaining({ service: 'todo-api', req: expect.objectContaining({ url: '/oauth/register' }), res: { statusCode: 201 } }),
      ]),
    );
    for (const line of access) expect(typeof line.req!.id).toBe('string');
    // Successes carry no error code.
    expect(access.filter((line) => line.res!.statusCode < 400 && 'errorCode' in line)).toEqual([]);
    expect(lines.map((line) => line.msg)).toEqual(expect.arrayContaining([expect.stringMatching(/^Received SIGTERM; draining/), expect.stringMatching(/^Shut down/)]));
    // oidc-provider's console notice that our parser read the registration body: a debug line of todo-api.
    expect(lines.filter((line) => line.msg.includes('already parsed request body'))).toEqual([expect.objectContaining({ level: 20, service: 'todo-api', context: 'console' })]);
    expect(lines.filter((line) => line.context === 'RouterExplorer').length).toBeGreaterThan(10);
  }, 120_000);

  it('a bad variable: one JSON error line naming it, exit 1', async () => {
    const failed = startChild(built.entries.todoApi, productionEnv({ TODO_API_PORT: String(await freePort()), DB_POOL_SIZE: 'lots' }));
    expect(await failed.exited).toEqual({ code: 1, signal: null });
    const lines = parseLines(`${failed.stdout()}${failed.stderr()}`);
    expect(lines).toEqual([expect.objectContaining({ level: 60, service: 'todo-api', msg: expect.stringContaining('DB_POOL_SIZE must be a whole number') })]);
  }, 60_000);

  it('an unreachable database: retries at warn, then one JSON error line with the cause, exit 1', async () => {
    const unreachable = `postgres://nobody:nothing@127.0.0.1:${await freePort()}/nothing`;
    // Three attempts (1 s apart) instead of the default ten: the same lines, 7 s sooner.
    const failed = startChild(built.entries.todoApi, productionEnv({ TODO_API_PORT: String(await freePort()), DATABASE_URL: unreachable, DB_CONNECT_ATTEMPTS: '3' }));
    expect(await failed.exited).toEqual({ code: 1, signal: null });
    const lines = parseLines(`${failed.stdout()}${failed.stderr()}`);
    const errors = lines.filter((line) => line.level >= 50);
    expect(errors).toEqual([expect.objectContaining({ level: 60, service: 'todo-api', msg: expect.stringContaining('failed to start'), err: expect.objectContaining({ message: expect.stringContaining('ECONNREFUSED') }) })]);
    const warnings = lines.filter((line) => line.level < 50);
    expect(warnings.every((line) => line.level === 40)).toBe(true);
    expect(warnings.filter((line) => /connect/i.test(line.msg))).toHaveLength(3);
  }, 90_000);
});
