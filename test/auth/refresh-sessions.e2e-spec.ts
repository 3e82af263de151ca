import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { insertUser } from '#libs/testing';
import { startApp, startWithDatabase, type TestApp } from '../support/test-apps.js';
import { bearer, claimsOf, expectError, logIn, signUp, type SignedUp } from './helpers.js';

describe('refresh tokens, sessions and logout', () => {
  let t: TestApp & { database: { url: string } };
  const secrets: string[] = [];

  beforeAll(async () => {
    t = await startWithDatabase('todo-api');
  });
  afterAll(async () => {
    await t?.close();
  });

  const refresh = (refreshToken: unknown, retryKey?: string) => {
    const request = t.http.post('/api/v1/auth/refresh');
    if (retryKey) request.set('Idempotency-Key', retryKey);
    return request.send({ refreshToken });
  };

  async function sessionRow(sessionId: string): Promise<{ revoked_at: Date | null }> {
    return (await t.dataSource.query(`SELECT revoked_at FROM sessions WHERE id = $1`, [sessionId]))[0];
  }

  async function fresh(): Promise<SignedUp> {
    const user = await signUp(t);
    secrets.push(user.password, user.token, user.refreshToken);
    return user;
  }

  describe('POST /api/v1/auth/refresh', () => {
    it('rotates the refresh token within the same session and answers token data with the user', async () => {
      const user = await fresh();
      const res = await refresh(user.refreshToken).expect(200);
      expect(res.body.data).toEqual({ token: expect.any(String), refreshToken: expect.any(String), user: expect.objectContaining({ id: user.userId }) });
      expect(res.body.data.refreshToken).not.toBe(user.refreshToken);
      expect(claimsOf(res.body.data.token).sid).toBe(claimsOf(user.token).sid);
      secrets.push(res.body.data.token, res.body.data.refreshToken);
      const next = await refresh(res.body.data.refreshToken).expect(200);
      await t.http.get('/api/v1/auth/verify').set(bearer(next.body.data.token)).expect(200);
    });

    it('treats a rotated token presented again as theft: 401 INVALID_TOKEN and the whole session revoked', async () => {
      const user = await fresh();
      const rotated = await refresh(user.refreshToken).expect(200);
      const replay = await refresh(user.refreshToken);
      expectError(replay, 401, 'INVALID_TOKEN');
      expect((await sessionRow(claimsOf(user.token).sid as string)).revoked_at).not.toBeNull();
      expectError(await refresh(rotated.body.data.refreshToken), 401, 'INVALID_TOKEN');
      expectError(await t.http.get('/api/v1/auth/verify').set(bearer(rotated.body.data.token)), 401, 'AUTH_REQUIRED');
    });

    it('answers unknown, expired and malformed tokens correctly', async () => {
      expectError(await refresh('x'.repeat(43)), 401, 'INVALID_TOKEN');
      const user = await fresh();
      await t.dataSource.query(`UPDATE sessions SET expires_at = now() - interval '1 second' WHERE id = $1`, [claimsOf(user.token).sid]);
      expectError(await refresh(user.refreshToken), 401, 'INVALID_TOKEN');
      expectError(await t.http.post('/api/v1/auth/refresh').send({}), 400, 'VALIDATION_ERROR');
      expectError(await refresh(42), 400, 'VALIDATION_ERROR');
      expectError(await refresh('a', 'key with spaces'), 400, 'VALIDATION_ERROR');
    });

    it('lets exactly one of 20 concurrent refreshes of one token win, and leaves no live descendant behind', async () => {
      const user = await fresh();
      const sessionId = claimsOf(user.token).sid as string;
      const results = await Promise.all(Array.from({ length: 20 }, () => refresh(user.refreshToken)));
      const winners = results.filter((r) => r.status === 200);
      expect(winners).toHaveLength(1);
      for (const loser of results.filter((r) => r.status !== 200)) expectError(loser, 401, 'INVALID_TOKEN');
      // The losers presented a token that had been rotated: reuse, so the session is revoked.
      expect((await sessionRow(sessionId)).revoked_at).not.toBeNull();
      expectError(await refresh(winners[0].body.data.refreshToken), 401, 'INVALID_TOKEN');
      const history = await t.dataSource.query(`SELECT count(*)::int AS n FROM refresh_token_history WHERE session_id = $1`, [sessionId]);
      expect(history[0].n).toBe(1);
    });

    describe('retry grace (same Idempotency-Key)', () => {
      it('answers a retried refresh with the same new refresh token and keeps the session', async () => {
        const user = await fresh();
        const first = await refresh(user.refreshToken, 'retry-key-1').expect(200);
        const retry = await refresh(user.refreshToken, 'retry-key-1').expect(200);
        expect(retry.body.data.refreshToken).toBe(first.body.data.refreshToken);
        await t.http.get('/api/v1/auth/verify').set(bearer(retry.body.data.token)).expect(200);
        const next = await refresh(first.body.data.refreshToken).expect(200);
        expect((await sessionRow(claimsOf(user.token).sid as string)).revoked_at).toBeNull();
        secrets.push(first.body.data.refreshToken, next.body.data.refreshToken);
      });

      it('gives 20 concurrent retries with one key the same single successor', async () => {
        const user = await fresh();
        const results = await Promise.all(Array.from({ length: 20 }, () => refresh(user.refreshToken, 'same-key')));
        const failures = results.filter((r) => r.status !== 200).map((r) => r.body);
        // On failure, show what the server logged about it.
        const unexpected = failures.length > 0 ? t.logs.lines.filter((line) => line.includes('unexpectedly')) : [];
        expect({ failures, unexpected }).toEqual({ failures: [], unexpected: [] });
        expect(new Set(results.map((r) => r.body.data.refreshToken)).size).toBe(1);
        await refresh(results[0].body.data.refreshToken).expect(200);
      });

      it('revokes the session when the key differs, when the new token was already used, or after 30 s', async () => {
        const otherKey = await fresh();
        await refresh(otherKey.refreshToken, 'key-a').expect(200);
        expectError(await refresh(otherKey.refreshToken, 'key-b'), 401, 'INVALID_TOKEN');
        expect((await sessionRow(claimsOf(otherKey.token).sid as string)).revoked_at).not.toBeNull();

        const used = await fresh();
        const rotated = await refresh(used.refreshToken, 'key-c').expect(200);
        await refresh(rotated.body.data.refreshToken).expect(200);
        expectError(await refresh(used.refreshToken, 'key-c'), 401, 'INVALID_TOKEN');
        expect((await sessionRow(claimsOf(used.token).sid as string)).revoked_at).not.toBeNull();

        const late = await fresh();
        await refresh(late.refreshToken, 'key-d').expect(200);
        await t.dataSource.query(`UPDATE refresh_token_history SET rotated_at = now() - interval '31 seconds' WHERE session_id = $1`, [claimsOf(late.token).sid]);
        expectError(await refresh(late.refreshToken, 'key-d'), 401, 'INVALID_TOKEN');
        expect((await sessionRow(claimsOf(late.token).sid as string)).revoked_at).not.toBeNull();
      });
    });

    it('stores refresh tokens only as hashes', async () => {
      const user = await fresh();
      const rotated = await refresh(user.refreshToken, 'hash-check').expect(200);
      const dump = JSON.stringify(await t.dataSource.query(`SELECT s.*, h.* FROM sessions s LEFT JOIN refresh_token_history h ON h.session_id = s.id WHERE s.user_id = $1`, [user.userId]));
      expect(dump).not.toContain(user.refreshToken);
      expect(dump).not.toContain(rotated.body.data.refreshToken);
    });
  });

  describe('sessions', () => {
    it('lists every session with its client details, newest first', async () => {
      const user = await fresh();
      await logIn(t, user.email, user.password, { 'User-Agent': 'second-device/2.0', 'X-Forwarded-For': '203.0.113.50' }).expect(200);
      const res = await t.http.get('/api/v1/auth/sessions').set(bearer(user.token)).expect(200);
      expect(res.body.data.sessions).toHaveLength(2);
      const [newest, oldest] = res.body.data.sessions;
      expect(newest).toEqual({
        id: expect.any(String),
        createdAt: expect.any(String),
        lastUsedAt: expect.any(String),
        expiresAt: expect.any(String),
        revokedAt: null,
        isActive: true,
        userAgent: 'second-device/2.0',
        // No TRUST_PROXY: X-Forwarded-For is ignored, the socket address counts.
        ipAddress: '127.0.0.1',
      });
      expect(oldest.id).toBe(claimsOf(user.token).sid);
      const days = (Date.parse(newest.expiresAt) - Date.parse(newest.createdAt)) / 86_400_000;
      expect(Math.round(days)).toBe(30);
    });

    it('names the device of a session whose User-Agent says it (an optional field, absent otherwise)', async () => {
      const user = await fresh();
      const chrome = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
      await logIn(t, user.email, user.password, { 'User-Agent': chrome }).expect(200);
      await logIn(t, user.email, user.password, { 'User-Agent': 'curl/8.5.0' }).expect(200);
      const res = await t.http.get('/api/v1/auth/sessions').set(bearer(user.token)).expect(200);
      const byAgent = (userAgent: string) => res.body.data.sessions.find((session: { userAgent: string }) => session.userAgent === userAgent);
      const [browser, script] = [byAgent(chrome), byAgent('curl/8.5.0')];
      expect(browser).toMatchObject({ userAgent: chrome, device: 'Chrome 131 on macOS' });
      expect(script).toMatchObject({ userAgent: 'curl/8.5.0' });
      expect(script).not.toHaveProperty('device');
    });

    it('revokes one session: its access and refresh tokens stop working at once', async () => {
      const user = await fresh();
      const other = await logIn(t, user.email, user.password).expect(200);
      const otherId = claimsOf(other.body.data.token).sid as string;
      await t.http.get('/api/v1/auth/verify').set(bearer(other.body.data.token)).expect(200);
      const res = await t.http.delete(`/api/v1/auth/sessions/${otherId}`).set(bearer(user.token)).expect(200);
      expect(res.body).toEqual({ success: true, data: { revoked: true } });
      expectError(await t.http.get('/api/v1/auth/verify').set(bearer(other.body.data.token)), 401, 'AUTH_REQUIRED');
      expectError(await refresh(other.body.data.refreshToken), 401, 'INVALID_TOKEN');
      const list = await t.http.get('/api/v1/auth/sessions').set(bearer(user.token)).expect(200);
      expect(list.body.data.sessions.find((s: any) => s.id === otherId)).toMatchObject({ isActive: false, revokedAt: expect.any(String) });
      await t.http.delete(`/api/v1/auth/sessions/${otherId}`).set(bearer(user.token)).expect(200);
    });

    it('answers 404 for an unknown or foreign session, 400 for a malformed id, 401 without a JWT', async () => {
      const user = await fresh();
      const stranger = await fresh();
      const strangerSession = claimsOf(stranger.token).sid as string;
      expectError(await t.http.delete('/api/v1/auth/sessions/6f1d2c3b-4a59-4e7f-8a1b-2c3d4e5f6a7b').set(bearer(user.token)), 404, 'NOT_FOUND');
      expectError(await t.http.delete(`/api/v1/auth/sessions/${strangerSession}`).set(bearer(user.token)), 404, 'NOT_FOUND');
      await t.http.get('/api/v1/auth/verify').set(bearer(stranger.token)).expect(200);
      expectError(await t.http.delete('/api/v1/auth/sessions/not-a-uuid').set(bearer(user.token)), 400, 'VALIDATION_ERROR');
      expectError(await t.http.delete(`/api/v1/auth/sessions/${strangerSession}`), 401, 'AUTH_REQUIRED');
      expectError(await t.http.get('/api/v1/auth/sessions'), 401, 'AUTH_REQUIRED');
      const list = await t.http.get('/api/v1/auth/sessions').set(bearer(user.token)).expect(200);
      expect(list.body.data.sessions.map((s: any) => s.id)).toEqual([claimsOf(user.token).sid]);
    });
  });

  describe('POST /api/v1/auth/logout', () => {
    it('without a body ends the session of the access token used', async () => {
      const user = await fresh();
      const other = await logIn(t, user.email, user.password).expect(200);
      const res = await t.http.post('/api/v1/auth/logout').set(bearer(user.token)).expect(200);
      expect(res.body).toEqual({ success: true, data: { message: expect.any(String) } });
      expectError(await t.http.get('/api/v1/auth/verify').set(bearer(user.token)), 401, 'AUTH_REQUIRED');
      expectError(await refresh(user.refreshToken), 401, 'INVALID_TOKEN');
      await t.http.get('/api/v1/auth/verify').set(bearer(other.body.data.token)).expect(200);
    });

    it('with refreshToken ends that session only if it is the caller’s', async () => {
      const user = await fresh();
      const stranger = await fresh();
      const second = await logIn(t, user.email, user.password).expect(200);
      await t.http.post('/api/v1/auth/logout').set(bearer(user.token)).send({ refreshToken: stranger.refreshToken }).expect(200);
      await refresh(stranger.refreshToken).expect(200);
      await t.http.post('/api/v1/auth/logout').set(bearer(user.token)).send({ refreshToken: second.body.data.refreshToken }).expect(200);
      expectError(await t.http.get('/api/v1/auth/verify').set(bearer(second.body.data.token)), 401, 'AUTH_REQUIRED');
      await t.http.get('/api/v1/auth/verify').set(bearer(user.token)).expect(200);
    });

    it('with allSessions ends every session of the account', async () => {
      const user = await fresh();
      const second = await logIn(t, user.email, user.password).expect(200);
      const res = await t.http.post('/api/v1/auth/logout').set(bearer(second.body.data.token)).send({ allSessions: true }).expect(200);
      expect(res.body.data.message).toContain('2 sessions');
      for (const token of [user.token, second.body.data.token]) expectError(await t.http.get('/api/v1/auth/verify').set(bearer(token)), 401, 'AUTH_REQUIRED');
    });

    it('refuses a bad body with 400 and no JWT with 401', async () => {
      const user = await fresh();
      expectError(await t.http.post('/api/v1/auth/logout').set(bearer(user.token)).send({ allSessions: 'yes' }), 400, 'VALIDATION_ERROR');
      expectError(await t.http.post('/api/v1/auth/logout').send({ allSessions: true }), 401, 'AUTH_REQUIRED');
      await t.http.get('/api/v1/auth/verify').set(bearer(user.token)).expect(200);
    });
  });

  it('takes the client IP from X-Forwarded-For only behind a declared proxy', async () => {
    const proxied = await startApp('todo-api', t.database.url, { TRUST_PROXY: 'loopback' });
    try {
      const { email, password } = await insertUser(t.dataSource);
      const res = await logIn(proxied, email, password, { 'X-Forwarded-For': '198.51.100.23' }).expect(200);
      const rows = await t.dataSource.query(`SELECT ip_address FROM sessions WHERE id = $1`, [claimsOf(res.body.data.token).sid]);
      expect(rows[0].ip_address).toBe('198.51.100.23');
      secrets.push(password, res.body.data.token, res.body.data.refreshToken);
      expect(proxied.logs.leaksOf(secrets)).toEqual([]);
    } finally {
      await proxied.close();
    }
  });

  it('never writes a password, token or hash to the log', async () => {
    const hashes = await t.dataSource.query(`SELECT refresh_token_hash AS h FROM sessions UNION ALL SELECT token_hash FROM refresh_token_history`);
    expect(t.logs.text()).toContain('Refresh token reuse detected');
    expect(t.logs.leaksOf([...secrets, ...hashes.map((row: { h: string }) => row.h)])).toEqual([]);
  });
});
