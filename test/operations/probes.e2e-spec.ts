import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { EXTRA_READINESS_CHECKS, startApp, startWithDatabase, type TestApp } from '../support/test-apps.js';

describe('liveness and readiness probes', () => {
  let todo: TestApp & { database: { url: string } };
  let feedback: TestApp;

  beforeAll(async () => {
    todo = await startWithDatabase('todo-api');
    feedback = await startApp('feedback-export', todo.database.url);
  });
  afterAll(async () => {
    await feedback?.close();
    await todo?.close();
  });

  it('serves /livez and /readyz outside /api/v1 on both apps, public, in the envelope, uncached, and out of the access log', async () => {
    for (const app of [todo, feedback]) {
      const before = app.logs.lines.length;
      const live = await app.http.get('/livez').expect(200);
      expect(live.body).toEqual({ success: true, data: { status: 'alive', uptimeSeconds: expect.any(Number) } });
      expect(live.headers['cache-control']).toBe('no-store');
      const ready = await app.http.get('/readyz').expect(200);
      expect(ready.body).toEqual({ success: true, data: { status: 'ready', draining: false, checks: { database: 'ok', migrations: 'ok', ...EXTRA_READINESS_CHECKS } } });
      expect(ready.headers['cache-control']).toBe('no-store');
      expect(app.logs.lines.slice(before).filter((line) => /"url":"\/(livez|readyz)"/.test(line))).toEqual([]);
    }
  });

  it('fails readiness while a migration of this build is not recorded as applied, and keeps liveness', async () => {
    const replica = await startApp('todo-api', todo.database.url);
    const [last] = await todo.dataSource.query(`SELECT id, timestamp, name FROM schema_migrations ORDER BY id DESC LIMIT 1`);
    await todo.dataSource.query(`DELETE FROM schema_migrations WHERE id = $1`, [last.id]);
    try {
      const notReady = await replica.http.get('/readyz').expect(503);
      expect(notReady.body.error).toMatchObject({ code: 'SERVICE_DEGRADED', details: { status: 'not_ready', draining: false, checks: { database: 'ok', migrations: 'error', ...EXTRA_READINESS_CHECKS } } });
      await replica.http.get('/livez').expect(200);
    } finally {
      await todo.dataSource.query(`INSERT INTO schema_migrations (id, timestamp, name) VALUES ($1, $2, $3)`, [last.id, last.timestamp, last.name]);
    }
    await replica.http.get('/readyz').expect(200);
    await replica.close();
  });

  it('documents both probes in the OpenAPI document, and not /metrics', async () => {
    for (const app of [todo, feedback]) {
      const { body: document } = await app.http.get('/api/v1/openapi.json').expect(200);
      expect(document.paths['/livez'].get.operationId).toBe('getLiveness');
      expect(document.paths['/livez'].get.security ?? []).toEqual([]);
      const readiness = document.paths['/readyz'].get;
      expect(readiness.operationId).toBe('getReadiness');
      expect(readiness.responses['200']).toBeDefined();
      expect(readiness.responses['503'].headers['Retry-After']).toBeDefined();
      expect(document.paths['/metrics']).toBeUndefined();
    }
  });
});
