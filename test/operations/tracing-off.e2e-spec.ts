/**
 * Tracing off costs nothing but one check per chokepoint: without OTEL_EXPORTER_OTLP_ENDPOINT the
 * built todo-api (a real child process, as production runs it) serves requests without loading the
 * SDK, the exporter, the propagator or the AsyncLocalStorage context manager: no context manager is
 * registered (the API's stays the no-op one), no request runs in a span, no statement in a child span.
 * `@opentelemetry/api` alone loads, and would without any tracing of ours: prom-client requires it
 * for exemplars. A module hook in the child (node:module registerHooks, through NODE_OPTIONS=--import)
 * (test/support/module-hook.ts) names every package as it loads; the same build with the endpoint set shows the hook
 * sees them. What tracing off costs is measured in bench/README.md ("Tracing off and on").
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from '#libs/database';
import { createTestDatabase, type TestDatabase } from '#libs/testing';
import { insertApiCaller } from '../support/api-keys.js';
import { loadedPackages, packageLoadHook } from '../support/module-hook.js';
import { buildServices, startBuiltApp, startBuiltTodoApi, type BuiltServices, type BuiltApp } from '../support/built-services.js';
import { TEST_JWT_SECRET } from '../support/test-apps.js';

function loadedOpenTelemetry(app: BuiltApp): string[] {
  return loadedPackages(app.output).filter((name) => name.startsWith('@opentelemetry/'));
}

describe('Packages on demand: with tracing off (OTEL_EXPORTER_OTLP_ENDPOINT unset) the tracing SDK is never loaded, nor what only some replicas need', () => {
  let built: BuiltServices;
  let database: TestDatabase;
  let dataSource: DataSource;
  let receiver: Server;
  let untraced: BuiltApp;
  let traced: BuiltApp;

  beforeAll(async () => {
    built = buildServices();
    const hook = packageLoadHook(built.root);
    database = await createTestDatabase({ migrated: true });
    // A collector that takes whatever the traced child exports.
    receiver = createServer((request, response) => request.resume().on('end', () => response.writeHead(200, { 'Content-Type': 'application/json' }).end('{}')));
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const env = { DATABASE_URL: database.url, JWT_SECRET: TEST_JWT_SECRET, DB_POOL_SIZE: '2', NODE_OPTIONS: hook };
    untraced = await startBuiltTodoApi(built, env, '/readyz');
    traced = await startBuiltTodoApi(built, { ...env, OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}` }, '/readyz');
    dataSource = new DataSource(dataSourceOptions({ url: database.url, poolSize: 1, applicationName: 'tracing-off-test' }));
    await dataSource.initialize();
  }, 120_000);

  afterAll(async () => {
    untraced?.stop();
    traced?.stop();
    await dataSource?.destroy();
    await database?.drop();
    await new Promise((resolve) => (receiver ? receiver.close(resolve) : resolve(undefined)));
    if (built) rmSync(built.root, { recursive: true, force: true });
  });

  it('serves a traced-looking request (incoming traceparent, statements, a transaction) with @opentelemetry/api alone loaded (by prom-client); with the endpoint set the same build loads the SDK', async () => {
    const { key } = await insertApiCaller(dataSource);
    for (const app of [untraced, traced]) {
      const headers = { 'x-api-key': key, 'content-type': 'application/json', traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' };
      const created = await fetch(`${app.base}/api/v1/todos`, { method: 'POST', headers, body: JSON.stringify({ text: 'traced or not', priority: 3, category: 'work' }) });
      expect(created.status).toBe(201);
      const listed = await fetch(`${app.base}/api/v1/todos`, { headers });
      expect(listed.status).toBe(200);
    }

    expect(loadedOpenTelemetry(untraced)).toEqual(['@opentelemetry/api']);
    expect(loadedOpenTelemetry(traced)).toEqual(expect.arrayContaining(['@opentelemetry/api', '@opentelemetry/context-async-hooks', '@opentelemetry/sdk-trace-base']));
  });

  it('loads what only some replicas or some requests need on demand: the Redis client with REDIS_URL, the QR code library at an authenticator enrolment', async () => {
    // By now the untraced child has started and served writes and reads; neither needed these.
    const loaded = loadedPackages(untraced.output);
    expect(loaded).toEqual(expect.arrayContaining(['@nestjs/core', 'pg']));
    expect(loaded.filter((name) => ['ioredis', 'qrcode'].includes(name))).toEqual([]);
  });

  it('loads the OAuth server (oidc-provider, Koa) when a request needs it: todo-api at its first authorization-server request, feedback-export (which imports the same identity wing) never', async () => {
    const oauthPackages = (output: string) => loadedPackages(output).filter((name) => ['oidc-provider', 'koa'].includes(name));
    // Started, and served writes and reads: no sign-in of an agent yet.
    expect(oauthPackages(untraced.output)).toEqual([]);
    const metadata = await fetch(`${untraced.base}/.well-known/oauth-authorization-server`);
    expect(metadata.status).toBe(200);
    expect(((await metadata.json()) as { issuer: string }).issuer).toMatch(/^http/);
    expect(oauthPackages(untraced.output)).toEqual(['koa', 'oidc-provider']);

    const feedback = await startBuiltApp(built, 'feedback-export', { DATABASE_URL: database.url, JWT_SECRET: TEST_JWT_SECRET, DB_POOL_SIZE: '2', NODE_OPTIONS: packageLoadHook(built.root) }, '/readyz');
    try {
      // An owner route through the identity wing's JWT guard first, with a token it refuses.
      const refused = await fetch(`${feedback.base}/api/v1/sites`, { headers: { authorization: 'Bearer not-a-token' } });
      expect(refused.status).toBe(401);
      expect(loadedPackages(feedback.output)).toEqual(expect.arrayContaining(['@nestjs/core', 'pg']));
      expect(oauthPackages(feedback.output)).toEqual([]);
    } finally {
      feedback.stop();
    }
  });
});
