import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { insertUser, type TestUser } from '#libs/testing';
import { grantBetaAccess } from '../support/api-access.js';
import { insertApiKey } from '../support/api-keys.js';
import { startWithDatabase, type TestApp } from '../support/test-apps.js';

const ADMIN_KEY = `admin-${randomBytes(16).toString('hex')}`;
const LIST = '/api/v1/billing/beta';

describe('GET /api/v1/billing/beta (the lifetime-beta grants and their audit entries)', () => {
  let t: TestApp;
  let first: TestUser;
  let second: TestUser;

  beforeAll(async () => {
    t = await startWithDatabase('todo-api', { ADMIN_API_KEY: ADMIN_KEY });
    first = await insertUser(t.dataSource);
    second = await insertUser(t.dataSource);
    const admin = (action: 'grant' | 'revoke', body: object, requestId: string) =>
      t.http.post(`/api/v1/billing/beta/${action}`).set('X-Admin-API-Key', ADMIN_KEY).set('X-Request-Id', requestId).send(body).expect(200);
    await admin('grant', { userId: first.id }, 'req-grant-first');
    await admin('grant', { email: second.email }, 'req-grant-second');
    await admin('grant', { userId: second.id }, 'req-grant-second-again');
    await admin('revoke', { userId: first.id }, 'req-revoke-first');
  });
  afterAll(async () => {
    await t?.close();
  });

  const list = (query: Record<string, string | number> = {}, key: string | null = ADMIN_KEY) => {
    const req = t.http.get(LIST).query(query);
    return key === null ? req : req.set('X-Admin-API-Key', key);
  };

  it('lists every account that holds or held beta, newest grant first, with its state and audit history', async () => {
    const res = await list().expect(200);
    expect(res.body.success).toBe(true);
    expect(res.body.data.nextCursor).toBeNull();
    const grants = res.body.data.grants;
    expect(grants.map((g: { userId: string }) => g.userId)).toEqual([second.id, first.id]);

    expect(grants[0]).toMatchObject({ userId: second.id, email: second.email, isBetaLifetime: true, grantedAt: expect.any(String) });
    expect(grants[0].history).toEqual([
      { action: 'grant', changed: false, requestId: 'req-grant-second-again', createdAt: expect.any(String) },
      { action: 'grant', changed: true, requestId: 'req-grant-second', createdAt: expect.any(String) },
    ]);
    // The listing's grant time is the grant that changed something, not the repeated one.
    expect(grants[0].grantedAt).toBe(grants[0].history[1].createdAt);

    expect(grants[1]).toMatchObject({ userId: first.id, email: first.email, isBetaLifetime: false });
    expect(grants[1].history.map((h: { action: string; requestId: string }) => [h.action, h.requestId])).toEqual([
      ['revoke', 'req-revoke-first'],
      ['grant', 'req-grant-first'],
    ]);
    expect(grants[1].grantedAt).toBe(grants[1].history[1].createdAt);
    for (const grant of grants) {
      const times = grant.history.map((h: { createdAt: string }) => Date.parse(h.createdAt));
      expect(times).toEqual([...times].sort((a, b) => b - a));
    }
    expect(Date.parse(grants[0].grantedAt)).toBeGreaterThan(Date.parse(grants[1].grantedAt));
  });

  it('pages with an opaque cursor: two pages of one, then the end', async () => {
    const page1 = await list({ limit: 1 }).expect(200);
    expect(page1.body.data.grants.map((g: { userId: string }) => g.userId)).toEqual([second.id]);
    expect(typeof page1.body.data.nextCursor).toBe('string');
    const page2 = await list({ limit: 1, cursor: page1.body.data.nextCursor }).expect(200);
    expect(page2.body.data.grants.map((g: { userId: string }) => g.userId)).toEqual([first.id]);
    expect(page2.body.data.grants[0].history).toHaveLength(2);
    expect(page2.body.data.nextCursor).toBeNull();
  });

  it('answers 400 VALIDATION_ERROR for a forged or altered cursor and for a limit outside 1..100', async () => {
    const real: string = (await list({ limit: 1 }).expect(200)).body.data.nextCursor;
    const [version, body, signature] = real.split('.');
    const forgedBody = Buffer.from(JSON.stringify({ v: 1, t: '2999-01-01 00:00:00+00', i: first.id })).toString('base64url');
    for (const cursor of [`${version}.${forgedBody}.${signature}`, `${version}.${body}.${'A'.repeat(signature.length)}`, 'not-a-cursor']) {
      const res = await list({ cursor }).expect(400);
      expect(res.body).toEqual({ success: false, error: expect.objectContaining({ code: 'VALIDATION_ERROR' }) });
    }
    for (const limit of ['0', '101', 'ten', '1.5']) {
      const res = await list({ limit }).expect(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
    }
  });

  it('needs the admin key: 401 ADMIN_AUTH_REQUIRED without it, with a wrong one, with a JWT or an API key', async () => {
    for (const key of [null, '', 'wrong-admin-key-0123456789', `${ADMIN_KEY}x`]) {
      const res = await list({}, key).expect(401);
      expect(res.body).toEqual({ success: false, error: expect.objectContaining({ code: 'ADMIN_AUTH_REQUIRED' }) });
    }
    const jwt = await t.accessTokenFor(first.id);
    const byJwt = await t.http.get(LIST).set('Authorization', `Bearer ${jwt}`).expect(401);
    expect(byJwt.body.error.code).toBe('ADMIN_AUTH_REQUIRED');
    const apiKey = (await insertApiKey(t.dataSource, second.id)).key;
    for (const headers of [{ 'X-API-Key': apiKey }, { Authorization: `Bearer ${apiKey}` }]) {
      const res = await t.http.get(LIST).set(headers).expect(401);
      expect(res.body.error.code).toBe('ADMIN_AUTH_REQUIRED');
    }
  });

  it('lists an account given beta outside the admin routes too (no audit entries), by when its subscription record changed', async () => {
    const holder = await insertUser(t.dataSource);
    await grantBetaAccess(t.dataSource, holder.id);
    const res = await list().expect(200);
    expect(res.body.data.grants.map((g: { userId: string }) => g.userId)).toEqual([holder.id, second.id, first.id]);
    expect(res.body.data.grants[0]).toMatchObject({ userId: holder.id, email: holder.email, isBetaLifetime: true, history: [] });
  });
});
