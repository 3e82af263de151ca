import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { listRoutes } from '#libs/common';
import { startDashboardApps } from '../support/test-apps.js';

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE', 'ALL']);

/**
 * Every write route a credential reaches (POST, PUT, PATCH, DELETE, not @Public) is counted
 * against a named budget (@RateLimit): an owner (or a token of theirs) cannot write without a
 * brake. Read from the live route table, so a new route without a budget fails here.
 */
describe('every credentialed write route has a rate limit', () => {
  let apps: Awaited<ReturnType<typeof startDashboardApps>>;

  beforeAll(async () => {
    apps = await startDashboardApps();
  });
  afterAll(async () => {
    await apps?.close();
  });

  it.each([
    ['todo-api', () => apps.todo],
    ['feedback-export', () => apps.feedback],
  ] as const)('%s', (_name, app) => {
    const writes = listRoutes(app().app).filter((route) => WRITE_METHODS.has(route.method) && route.scheme !== 'public');
    expect(writes.length).toBeGreaterThan(5);
    const unlimited = writes.filter((route) => !route.rateLimit).map((route) => `${route.method} ${route.path} ${route.scheme}`);
    expect(unlimited).toEqual([]);
    for (const route of writes) {
      expect(route.rateLimit!.limit).toBeGreaterThan(0);
      expect(route.rateLimit!.windowSeconds).toBeGreaterThan(0);
    }
  });
});
