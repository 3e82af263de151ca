import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHash, randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { insertUser, type TestUser } from '#libs/testing';
import { generateApiKey } from '../../apps/todo-api/src/api-access/api-key.format.js';
import { MAX_ACTIVE_API_KEYS } from '../../apps/todo-api/src/api-keys/api-keys.service.js';
import { startApp, startWithDatabase, type TestApp } from '../support/test-apps.js';
import { grantBetaAccess } from '../support/api-access.js';

const ADMIN_KEY = `admin-${randomBytes(16).toString('hex')}`;
const DAY_MS = 24 * 3600 * 1000;

describe('API keys: management (JWT) and authentication (API key)', () => {
  let t: TestApp & { database: { url: string } };
  /** Every full key the API handed out, to prove none is stored or logged. */
  const secrets: string[] = [];

  beforeAll(async () => {
    t = await startWithDatabase('todo-api', { ADMIN_API_KEY: ADMIN_KEY });
  });
  afterAll(async () => {
    await t?.close();
  });

  async function newUser(options: { access?: boolean } = {}): Promise<TestUser & { token: string; auth: [string, string] }> {
    const user = await insertUser(t.dataSource);
    if (options.access !== false) await grantBetaAccess(t.dataSource, user.id);
    const token = await t.accessTokenFor(user.id);
    return { ...user, token, auth: ['Authorization', `Bearer ${token}`] };
  }

  async function createKey(auth: [string, string], body: Record<string, unknown> = { name: 'test key' }) {
    const res = await t.http.post('/api/v1/auth/api-keys').set(...auth).send(body).expect(201);
    secrets.push(res.body.data.apiKey);
    return res.body.data as { apiKey: string; key: Record<string, any> };
  }

  const useKey = (key: string) => t.http.get('/api/v1/auth/api-keys/current').set('Authorization', `Bearer ${key}`);

  describe('create and list', () => {
    it('creates a key: full secret once, record with a 12-character prefix; the list never shows the secret', async () => {
      const user = await newUser();
      const res = await t.http.post('/api/v1/auth/api-keys').set(...user.auth).send({ name: '  CI pipeline ' }).expect(201);
      const { apiKey, key } = res.body.data;
      secrets.push(apiKey);
      expect(apiKey).toMatch(/^tdk_[0-9A-Za-z]{38}$/);
      expect(key).toEqual({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        name: 'CI pipeline',
        prefix: apiKey.slice(0, 12),
        createdAt: expect.any(String),
        lastUsedAt: null,
        expiresAt: null,
        revokedAt: null,
      });
      expect(Math.abs(new Date(key.createdAt).getTime() - Date.now())).toBeLessThan(60_000);

      const list = await t.http.get('/api/v1/auth/api-keys').set(...user.auth).expect(200);
      expect(list.body).toEqual({ success: true, data: { keys: [key] } });
      expect(JSON.stringify(list.body)).not.toContain(apiKey.slice(12));
    });

    it('lists only the caller’s keys, oldest first', async () => {
      const user = await newUser();
      const other = await newUser();
      const first = await createKey(user.auth, { name: 'one' });
      const second = await createKey(user.auth, { name: 'two' });
      await createKey(other.auth, { name: 'someone else' });
      const list = await t.http.get('/api/v1/auth/api-keys').set(...user.auth).expect(200);
      expect(list.body.data.keys.map((k: { id: string }) => k.id)).toEqual([first.key.id, second.key.id]);
    });

    it('sets the expiry from expiresAt or expiresInDays; null means none', async () => {
      const user = await newUser();
      const at = new Date(Date.now() + 3 * DAY_MS).toISOString();
      expect((await createKey(user.auth, { name: 'at', expiresAt: at })).key.expiresAt).toBe(at);
      const inDays = (await createKey(user.auth, { name: 'days', expiresInDays: 30 })).key.expiresAt;
      expect(Math.abs(new Date(inDays).getTime() - (Date.now() + 30 * DAY_MS))).toBeLessThan(60_000);
      expect((await createKey(user.auth, { name: 'none', expiresAt: null })).key.expiresAt).toBeNull();
    });

    it(`holds at most ${MAX_ACTIVE_API_KEYS} working keys per account, even when created at once: 409 CONFLICT beyond; a revoked or expired key frees its place`, async () => {
      const user = await newUser();
      const other = await newUser();
      const attempts = await Promise.all(
        Array.from({ length: MAX_ACTIVE_API_KEYS + 5 }, (_, i) => t.http.post('/api/v1/auth/api-keys').set(...user.auth).send({ name: `key ${i}` })),
      );
      const created = attempts.filter((res) => res.status === 201);
      const refused = attempts.filter((res) => res.status !== 201);
      secrets.push(...created.map((res) => res.body.data.apiKey as string));
      expect(created).toHaveLength(MAX_ACTIVE_API_KEYS);
      expect(refused.map((res) => [res.status, res.body.error.code])).toEqual(Array.from({ length: 5 }, () => [409, 'CONFLICT']));
      expect(refused[0].body.error.message).toContain(`at most ${MAX_ACTIVE_API_KEYS} active API keys`);
      // Another account is not affected.
      await createKey(other.auth);
      // A revoked key frees its place; so does one that has expired.
      await t.http.delete(`/api/v1/auth/api-keys/${created[0].body.data.key.id}`).set(...user.auth).expect(200);
      await createKey(user.auth);
      await t.http.post('/api/v1/auth/api-keys').set(...user.auth).send({ name: 'one too many' }).expect(409);
      await t.dataSource.query(`UPDATE api_keys SET expires_at = now() - interval '1 second' WHERE user_id = $1 AND id = $2`, [user.id, created[1].body.data.key.id]);
      await createKey(user.auth);
      const listed = await t.http.get('/api/v1/auth/api-keys').set(...user.auth).expect(200);
      expect(listed.body.data.keys).toHaveLength(MAX_ACTIVE_API_KEYS + 2);
    });

    it('refuses invalid requests with 400 VALIDATION_ERROR', async () => {
      const user = await newUser();
      const future = new Date(Date.now() + DAY_MS).toISOString();
      const bodies: unknown[] = [
        {},
        { name: '' },
        { name: '   ' },
        { name: 'x'.repeat(81) },
        { name: 42 },
        { name: 'k', expiresAt: new Date(Date.now() - 60_000).toISOString() },
        { name: 'k', expiresAt: future, expiresInDays: 5 },
        { name: 'k', expiresAt: null, expiresInDays: 5 },
        { name: 'k', expiresAt: 'tomorrow' },
        { name: 'k', expiresAt: '2099-02-30T00:00:00Z' },
        { name: 'k', expiresInDays: 0 },
        { name: 'k', expiresInDays: 3651 },
        { name: 'k', expiresInDays: 1.5 },
        { name: 'k', expiresInDays: '5' },
        { name: 'k', owner: 'someone' },
      ];
      for (const body of bodies) {
        const res = await t.http.post('/api/v1/auth/api-keys').set(...user.auth).send(body as object);
        expect({ body, status: res.status, code: res.body.error?.code }).toEqual({ body, status: 400, code: 'VALIDATION_ERROR' });
      }
      expect((await t.http.get('/api/v1/auth/api-keys').set(...user.auth)).body.data.keys).toEqual([]);
      // The limits themselves are accepted.
      await createKey(user.auth, { name: 'x'.repeat(80), expiresInDays: 3650 });
      await createKey(user.auth, { name: 'y', expiresInDays: 1 });
    });

    it('needs a JWT (401 AUTH_REQUIRED) and API access (402 SUBSCRIPTION_REQUIRED) on every management route', async () => {
      const lapsed = await newUser({ access: false });
      const keyId = '00000000-0000-4000-8000-000000000000';
      const routes = [
        () => t.http.get('/api/v1/auth/api-keys'),
        () => t.http.post('/api/v1/auth/api-keys').send({ name: 'k' }),
        () => t.http.delete(`/api/v1/auth/api-keys/${keyId}`),
        () => t.http.post(`/api/v1/auth/api-keys/${keyId}/rotate`),
      ];
      for (const route of routes) {
        expect((await route()).body.error.code).toBe('AUTH_REQUIRED');
        const res = await route().set(...lapsed.auth);
        expect([res.status, res.body.error.code]).toEqual([402, 'SUBSCRIPTION_REQUIRED']);
      }
      // An API key is not a JWT.
      const owner = await newUser();
      const { apiKey } = await createKey(owner.auth);
      const res = await t.http.get('/api/v1/auth/api-keys').set('Authorization', `Bearer ${apiKey}`).expect(401);
      expect(res.body.error.code).toBe('AUTH_REQUIRED');
    });
  });

  describe('authentication with the key', () => {
    it('accepts the key as a bearer token or in X-API-Key', async () => {
      const user = await newUser();
      const { apiKey, key } = await createKey(user.auth);
      const bearer = await useKey(apiKey).expect(200);
      expect(bearer.body.data.key).toMatchObject({ id: key.id, name: key.name, prefix: key.prefix });
      await t.http.get('/api/v1/auth/api-keys/current').set('X-API-Key', apiKey).expect(200);
    });

    it('answers 401 API_KEY_REQUIRED without a key and 401 INVALID_API_KEY for JWTs, garbage and unknown keys', async () => {
      const user = await newUser();
      const none = await t.http.get('/api/v1/auth/api-keys/current').expect(401);
      expect(none.body).toEqual({ success: false, error: { code: 'API_KEY_REQUIRED', message: expect.any(String) } });
      for (const candidate of [user.token, 'tdk_short', generateApiKey().key, `${generateApiKey().key.slice(0, -1)}x`]) {
        const res = await useKey(candidate).expect(401);
        expect(res.body.error.code).toBe('INVALID_API_KEY');
      }
    });

    it('records lastUsedAt on use, at most once a minute', async () => {
      const user = await newUser();
      const { apiKey, key } = await createKey(user.auth);
      await useKey(apiKey).expect(200);
      const read = async () => (await t.dataSource.query(`SELECT last_used_at FROM api_keys WHERE id = $1`, [key.id]))[0].last_used_at as Date | null;
      let first: Date | null = null;
      for (let i = 0; i < 40 && !first; i++) {
        first = await read();
        if (!first) await sleep(25);
      }
      expect(first).not.toBeNull();
      await useKey(apiKey).expect(200);
      await useKey(apiKey).expect(200);
      await sleep(100);
      expect((await read())!.getTime()).toBe(first!.getTime());
      const list = await t.http.get('/api/v1/auth/api-keys').set(...user.auth).expect(200);
      expect(list.body.data.keys[0].lastUsedAt).toBe(first!.toISOString());
    });
  });

  describe('lifecycle', () => {
    it('rotate: new secret on the same record (id, name); the old secret dies at once', async () => {
      const user = await newUser();
      const created = await createKey(user.auth, { name: 'deploy', expiresInDays: 10 });
      await useKey(created.apiKey).expect(200);

      const res = await t.http.post(`/api/v1/auth/api-keys/${created.key.id}/rotate`).set(...user.auth).expect(200);
      const rotated = res.body.data;
      secrets.push(rotated.apiKey);
      expect(rotated.apiKey).toMatch(/^tdk_[0-9A-Za-z]{38}$/);
      expect(rotated.apiKey).not.toBe(created.apiKey);
      expect(rotated.key).toMatchObject({ id: created.key.id, name: 'deploy', prefix: rotated.apiKey.slice(0, 12), expiresAt: created.key.expiresAt, revokedAt: null });

      expect((await useKey(created.apiKey).expect(401)).body.error.code).toBe('INVALID_API_KEY');
      expect((await useKey(rotated.apiKey).expect(200)).body.data.key.id).toBe(created.key.id);
      const list = await t.http.get('/api/v1/auth/api-keys').set(...user.auth).expect(200);
      expect(list.body.data.keys).toHaveLength(1);
    });

    it('rotate: a new expiry, clearExpiry, and refusals of contradictory or impossible requests', async () => {
      const user = await newUser();
      const { key } = await createKey(user.auth, { name: 'k', expiresInDays: 5 });
      const rotate = (body?: object) => t.http.post(`/api/v1/auth/api-keys/${key.id}/rotate`).set(...user.auth).send(body);

      const longer = await rotate({ expiresInDays: 90 }).expect(200);
      secrets.push(longer.body.data.apiKey);
      expect(Math.abs(new Date(longer.body.data.key.expiresAt).getTime() - (Date.now() + 90 * DAY_MS))).toBeLessThan(60_000);
      const cleared = await rotate({ clearExpiry: true }).expect(200);
      secrets.push(cleared.body.data.apiKey);
      expect(cleared.body.data.key.expiresAt).toBeNull();

      for (const body of [
        { clearExpiry: true, expiresInDays: 3 },
        { expiresAt: new Date(Date.now() + DAY_MS).toISOString(), expiresInDays: 3 },
        { expiresAt: new Date(Date.now() - DAY_MS).toISOString() },
        { clearExpiry: 'yes' },
        { name: 'renamed' },
      ]) {
        const res = await rotate(body);
        expect({ body, status: res.status, code: res.body.error?.code }).toEqual({ body, status: 400, code: 'VALIDATION_ERROR' });
      }
      // Nothing above rotated the key: the last secret still works.
      await useKey(cleared.body.data.apiKey).expect(200);
    });

    it('rotate and revoke: 404 for another user’s key or an unknown id, 400 for a malformed id', async () => {
      const owner = await newUser();
      const intruder = await newUser();
      const { apiKey, key } = await createKey(owner.auth);
      for (const request of [
        () => t.http.post(`/api/v1/auth/api-keys/${key.id}/rotate`),
        () => t.http.delete(`/api/v1/auth/api-keys/${key.id}`),
        () => t.http.delete('/api/v1/auth/api-keys/00000000-0000-4000-8000-000000000000'),
      ]) {
        const res = await request().set(...intruder.auth).expect(404);
        expect(res.body.error.code).toBe('NOT_FOUND');
      }
      expect((await t.http.delete('/api/v1/auth/api-keys/not-a-uuid').set(...owner.auth).expect(400)).body.error.code).toBe('VALIDATION_ERROR');
      await useKey(apiKey).expect(200);
    });

    it('revoke: the key dies at once, stays listed with revokedAt, cannot be rotated; revoking again is harmless', async () => {
      const user = await newUser();
      const { apiKey, key } = await createKey(user.auth);
      await useKey(apiKey).expect(200);
      const res = await t.http.delete(`/api/v1/auth/api-keys/${key.id}`).set(...user.auth).expect(200);
      expect(res.body).toEqual({ success: true, data: { revoked: true } });
      expect((await useKey(apiKey).expect(401)).body.error.code).toBe('INVALID_API_KEY');

      const listed = (await t.http.get('/api/v1/auth/api-keys').set(...user.auth).expect(200)).body.data.keys[0];
      expect(listed.id).toBe(key.id);
      expect(Math.abs(new Date(listed.revokedAt).getTime() - Date.now())).toBeLessThan(60_000);
      await t.http.delete(`/api/v1/auth/api-keys/${key.id}`).set(...user.auth).expect(200);
      const again = (await t.http.get('/api/v1/auth/api-keys').set(...user.auth)).body.data.keys[0];
      expect(again.revokedAt).toBe(listed.revokedAt);
      const rotate = await t.http.post(`/api/v1/auth/api-keys/${key.id}/rotate`).set(...user.auth).expect(409);
      expect(rotate.body.error.code).toBe('CONFLICT');
      await useKey(apiKey).expect(401);
    });

    it('expiry: a key stops working once its expiry passes; rotating it needs a new expiry', async () => {
      const user = await newUser();
      const { apiKey, key } = await createKey(user.auth, { name: 'short', expiresInDays: 1 });
      await useKey(apiKey).expect(200);
      // Time passes: move the expiry into the past rather than wait a day.
      await t.dataSource.query(`UPDATE api_keys SET expires_at = now() - interval '1 second' WHERE id = $1`, [key.id]);
      expect((await useKey(apiKey).expect(401)).body.error.code).toBe('INVALID_API_KEY');

      const kept = await t.http.post(`/api/v1/auth/api-keys/${key.id}/rotate`).set(...user.auth).expect(400);
      expect(kept.body.error.code).toBe('VALIDATION_ERROR');
      const renewed = await t.http.post(`/api/v1/auth/api-keys/${key.id}/rotate`).set(...user.auth).send({ expiresInDays: 7 }).expect(200);
      secrets.push(renewed.body.data.apiKey);
      await useKey(renewed.body.data.apiKey).expect(200);
      await useKey(apiKey).expect(401);
    });

    it('a lapsed subscription: the key answers 402 and key management answers 402; access back, both work again', async () => {
      const user = await newUser({ access: false });
      await t.dataSource.query(`INSERT INTO subscriptions (user_id, provider, plan_code, status) VALUES ($1, 'stripe', 'api_access_monthly', 'active')`, [user.id]);
      const { apiKey } = await createKey(user.auth);
      await useKey(apiKey).expect(200);

      await t.dataSource.query(`UPDATE subscriptions SET status = 'past_due' WHERE user_id = $1`, [user.id]);
      const denied = await useKey(apiKey).expect(402);
      expect(denied.body).toEqual({ success: false, error: { code: 'SUBSCRIPTION_REQUIRED', message: expect.any(String) } });
      expect((await t.http.get('/api/v1/auth/api-keys').set(...user.auth).expect(402)).body.error.code).toBe('SUBSCRIPTION_REQUIRED');

      // Lifetime beta through the admin route restores access at once; revoking it takes it away at once.
      await t.http.post('/api/v1/billing/beta/grant').set('X-Admin-API-Key', ADMIN_KEY).send({ userId: user.id }).expect(200);
      await useKey(apiKey).expect(200);
      await t.http.get('/api/v1/auth/api-keys').set(...user.auth).expect(200);
      await t.http.post('/api/v1/billing/beta/revoke').set('X-Admin-API-Key', ADMIN_KEY).send({ userId: user.id }).expect(200);
      await useKey(apiKey).expect(402);
    });
  });

  describe('several replicas', () => {
    it('a revoke, rotation or lapse on one replica holds on another at once (no per-replica cache)', async () => {
      const replica = await startApp('todo-api', t.database.url);
      try {
        const user = await newUser();
        const revoked = await createKey(user.auth);
        const rotated = await createKey(user.auth);
        const useOn = (app: TestApp, key: string) => app.http.get('/api/v1/auth/api-keys/current').set('X-API-Key', key);
        await useOn(replica, revoked.apiKey).expect(200);
        await useOn(replica, rotated.apiKey).expect(200);

        await t.http.delete(`/api/v1/auth/api-keys/${revoked.key.id}`).set(...user.auth).expect(200);
        const fresh = (await t.http.post(`/api/v1/auth/api-keys/${rotated.key.id}/rotate`).set(...user.auth).expect(200)).body.data.apiKey;
        secrets.push(fresh);
        await useOn(replica, revoked.apiKey).expect(401);
        await useOn(replica, rotated.apiKey).expect(401);
        await useOn(replica, fresh).expect(200);

        await t.dataSource.query(`UPDATE subscriptions SET is_beta_lifetime = false WHERE user_id = $1`, [user.id]);
        await useOn(replica, fresh).expect(402);
      } finally {
        await replica.close();
      }
    });
  });

  describe('secrets at rest', () => {
    it('no API key secret appears anywhere in a full dump of the database, or in the logs; their hashes do', async () => {
      expect(secrets.length).toBeGreaterThan(10);
      const tables: Array<{ table_name: string }> = await t.dataSource.query(
        `SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`,
      );
      expect(tables.map((row) => row.table_name)).toEqual(expect.arrayContaining(['api_keys', 'users', 'subscriptions']));
      let dump = '';
      for (const { table_name } of tables) {
        const rows: Array<{ row: string }> = await t.dataSource.query(`SELECT t::text AS row FROM "${table_name.replace(/"/g, '""')}" t`);
        dump += rows.map((r) => r.row).join('\n') + '\n';
      }
      for (const secret of secrets) {
        expect(dump.includes(secret)).toBe(false);
        // The secret part alone (after the displayed prefix) must not appear either.
        expect(dump.includes(secret.slice(12))).toBe(false);
      }
      // The dump is real: the hash of the most recent secret is in it.
      const latest = secrets[secrets.length - 1];
      expect(dump).toContain(createHash('sha256').update(latest).digest('hex'));
      expect(t.logs.leaksOf(secrets)).toEqual([]);
    });
  });
});
