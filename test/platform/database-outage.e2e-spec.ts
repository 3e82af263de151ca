import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestDatabase, ToggleProxy, type TestDatabase } from '#libs/testing';
import { startApp, type TestApp } from '../support/test-apps.js';

async function waitFor<T>(probe: () => Promise<T>, accept: (value: T) => boolean, timeoutMs: number): Promise<{ value: T; elapsedMs: number }> {
  const started = Date.now();
  let value = await probe();
  while (!accept(value)) {
    if (Date.now() - started > timeoutMs) throw new Error(`condition not met within ${timeoutMs} ms; last value ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
    value = await probe();
  }
  return { value, elapsedMs: Date.now() - started };
}

describe('status when the database goes away and comes back', () => {
  let database: TestDatabase;
  let proxy: ToggleProxy;
  let t: TestApp;

  beforeAll(async () => {
    database = await createTestDatabase();
    proxy = ToggleProxy.forUrl(database.url);
    await proxy.start();
    t = await startApp('todo-api', proxy.wrap(database.url));
  });
  afterAll(async () => {
    await t?.close();
    await proxy?.stop();
    await database?.drop();
  });

  it('reports 503 SERVICE_DEGRADED within 2 s of losing the database, then recovers by itself', async () => {
    await t.http.get('/api/v1/status').expect(200);

    proxy.cut();
    const started = Date.now();
    const degraded = await t.http.get('/api/v1/status');
    expect(Date.now() - started).toBeLessThan(2000);
    expect(degraded.status).toBe(503);
    expect(degraded.body).toMatchObject({
      success: false,
      error: { code: 'SERVICE_DEGRADED', details: { status: 'degraded', service: 'todo-api', checks: { db: 'error' } } },
    });

    proxy.restore();
    const recovered = await waitFor(
      async () => (await t.http.get('/api/v1/status')).status,
      (status) => status === 200,
      10_000,
    );
    expect(recovered.value).toBe(200);
  });
});
