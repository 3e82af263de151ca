import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { insertUser, type TestUser } from '#libs/testing';
import { startApp, startWithDatabase, type TestApp } from '../support/test-apps.js';
import { expectError, logIn, uniqueEmail } from './helpers.js';

describe('login rate limit', () => {
  let t: TestApp & { database: { url: string } };
  /** A second replica on the same database. */
  let replica: TestApp;
  /** A replica behind a declared proxy: X-Forwarded-For names the client. */
  let proxied: TestApp;
  const secrets: string[] = [];

  beforeAll(async () => {
    t = await startWithDatabase('todo-api');
    replica = await startApp('todo-api', t.database.url);
    proxied = await startApp('todo-api', t.database.url, { TRUST_PROXY: 'loopback' });
  });
  afterAll(async () => {
    await proxied?.close();
    await replica?.close();
    await t?.close();
  });

  async function user(): Promise<TestUser> {
    const created = await insertUser(t.dataSource);
    secrets.push(created.password);
    return created;
  }

  function from(ip: string): Record<string, string> {
    return { 'X-Forwarded-For': ip };
  }

  it('answers the 11th failed attempt for one e-mail with 429 RATE_LIMITED and Retry-After, even with the right password', async () => {
    const victim = await user();
    for (let i = 1; i <= 10; i++) {
      const res = await logIn(proxied, victim.email, `wrong-${i}-password`, from('192.0.2.1'));
      expectError(res, 401, 'INVALID_CREDENTIALS');
      expect(res.headers['ratelimit-remaining']).toBe(String(10 - i));
    }
    const blocked = await logIn(proxied, victim.email, victim.password, from('192.0.2.1'));
    expectError(blocked, 429, 'RATE_LIMITED');
    const retryAfter = Number(blocked.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(800);
    expect(retryAfter).toBeLessThanOrEqual(900);
    expect(blocked.headers['ratelimit-limit']).toBe('10');
    expect(blocked.headers['ratelimit-remaining']).toBe('0');
    expect(Number(blocked.headers['ratelimit-reset'])).toBe(retryAfter);
    // Per (IP, e-mail): the same account from elsewhere, and another account from here, still work.
    await logIn(proxied, victim.email, victim.password, from('192.0.2.2')).expect(200);
    const other = await user();
    await logIn(proxied, other.email, other.password, from('192.0.2.1')).expect(200);
  });

  it('counts attempts before checking: of 15 concurrent guesses exactly 10 are checked (401) and 5 refused (429)', async () => {
    const victim = await user();
    const failures = await Promise.all(Array.from({ length: 15 }, () => logIn(proxied, victim.email, 'wrong-password-x', from('192.0.2.3'))));
    // Counted before the check, so concurrent guesses cannot exceed the limit.
    expect(failures.map((r) => r.status).sort()).toEqual([...Array(10).fill(401), ...Array(5).fill(429)]);
  });

  it('does not count successful sign-ins', async () => {
    const member = await user();
    for (let i = 0; i < 9; i++) expectError(await logIn(proxied, member.email, 'wrong-password-y', from('192.0.2.4')), 401, 'INVALID_CREDENTIALS');
    for (let i = 0; i < 5; i++) await logIn(proxied, member.email, member.password, from('192.0.2.4')).expect(200);
    expectError(await logIn(proxied, member.email, 'wrong-password-y', from('192.0.2.4')), 401, 'INVALID_CREDENTIALS');
    expectError(await logIn(proxied, member.email, member.password, from('192.0.2.4')), 429, 'RATE_LIMITED');
  });

  it('holds across replicas sharing the database', async () => {
    const victim = await user();
    for (let i = 0; i < 5; i++) expectError(await logIn(t, victim.email, 'wrong-password-z'), 401, 'INVALID_CREDENTIALS');
    for (let i = 0; i < 5; i++) expectError(await logIn(replica, victim.email, 'wrong-password-z'), 401, 'INVALID_CREDENTIALS');
    expectError(await logIn(t, victim.email, victim.password), 429, 'RATE_LIMITED');
    expectError(await logIn(replica, victim.email, victim.password), 429, 'RATE_LIMITED');
  });

  it('ignores X-Forwarded-For without a declared proxy', async () => {
    const victim = await user();
    for (let i = 0; i < 10; i++) {
      expectError(await logIn(t, victim.email, 'wrong-password-w', from(`198.51.100.${i + 1}`)), 401, 'INVALID_CREDENTIALS');
    }
    expectError(await logIn(t, victim.email, victim.password, from('198.51.100.99')), 429, 'RATE_LIMITED');
  });

  it('limits one IP to 100 failed attempts across e-mails', async () => {
    const ip = from('192.0.2.50');
    for (let i = 0; i < 100; i++) {
      const res = await logIn(proxied, uniqueEmail('spray'), 'wrong-password-s', ip);
      if (res.status !== 401) throw new Error(`attempt ${i + 1} answered ${res.status}`);
    }
    const member = await user();
    const blocked = await logIn(proxied, member.email, member.password, ip);
    expectError(blocked, 429, 'RATE_LIMITED');
    expect(blocked.headers['ratelimit-limit']).toBe('100');
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
    await logIn(proxied, member.email, member.password, from('192.0.2.51')).expect(200);
  });

  it('limits forgot-password to 30 requests per hour per IP', async () => {
    const ip = from('192.0.2.60');
    for (let i = 0; i < 30; i++) await proxied.http.post('/api/v1/auth/forgot-password').set(ip).send({ email: uniqueEmail('nobody') }).expect(200);
    const blocked = await proxied.http.post('/api/v1/auth/forgot-password').set(ip).send({ email: uniqueEmail('nobody') });
    expectError(blocked, 429, 'RATE_LIMITED');
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('never writes a password to the log', () => {
    for (const app of [t, replica, proxied]) expect(app.logs.leaksOf(secrets)).toEqual([]);
  });
});
