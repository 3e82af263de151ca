import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHash, randomBytes } from 'node:crypto';
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

  /** `count` failed sign-ins for `email`, `perAddress` from each address `address(i)`; every one must be checked (401). */
  async function failFrom(email: string, count: number, address: (i: number) => string, perAddress = 10): Promise<void> {
    for (let i = 0; i < count; i += perAddress) {
      const answers = await Promise.all(Array.from({ length: Math.min(perAddress, count - i) }, () => logIn(proxied, email, 'wrong-password-n', from(address(i / perAddress)))));
      const unexpected = answers.filter((res) => res.status !== 401).map((res) => res.status);
      if (unexpected.length > 0) throw new Error(`attempts from ${address(i / perAddress)} answered ${unexpected.join(', ')}`);
    }
  }

  it('counts an IPv6 client by its /64: failures from many addresses of one /64 share one budget, another /64 has its own', async () => {
    const victim = await user();
    for (let i = 1; i <= 10; i++) {
      // Ten addresses of 2001:db8:6:1::/64, spelled every which way.
      const address = i % 2 === 0 ? `2001:db8:6:1::${i.toString(16)}` : `2001:0DB8:0006:0001:${i.toString(16)}:0:0:1`;
      expectError(await logIn(proxied, victim.email, 'wrong-password-6', from(address)), 401, 'INVALID_CREDENTIALS');
    }
    const blocked = await logIn(proxied, victim.email, victim.password, from('2001:db8:6:1:ffff:ffff:ffff:fffe'));
    expectError(blocked, 429, 'RATE_LIMITED');
    expect(blocked.headers['ratelimit-limit']).toBe('10');
    // The next /64 is another customer.
    await logIn(proxied, victim.email, victim.password, from('2001:db8:6:2::1')).expect(200);
  });

  it('counts an IPv4-mapped IPv6 address as the IPv4 address', async () => {
    const victim = await user();
    for (let i = 0; i < 5; i++) expectError(await logIn(proxied, victim.email, 'wrong-password-m', from('192.0.2.70')), 401, 'INVALID_CREDENTIALS');
    for (let i = 0; i < 5; i++) expectError(await logIn(proxied, victim.email, 'wrong-password-m', from('::ffff:192.0.2.70')), 401, 'INVALID_CREDENTIALS');
    expectError(await logIn(proxied, victim.email, victim.password, from('::ffff:c000:246')), 429, 'RATE_LIMITED');
    expectError(await logIn(proxied, victim.email, victim.password, from('192.0.2.70')), 429, 'RATE_LIMITED');
  });

  it('keys the public per-IP route budgets (RateLimitGuard) by /64 too: forgot-password allows 30 an hour per /64', async () => {
    for (let i = 0; i < 30; i++) {
      await proxied.http.post('/api/v1/auth/forgot-password').set(from(`2001:db8:7:1::${(i + 1).toString(16)}`)).send({ email: uniqueEmail('nobody') }).expect(200);
    }
    const blocked = await proxied.http.post('/api/v1/auth/forgot-password').set(from('2001:db8:7:1:abcd::1')).send({ email: uniqueEmail('nobody') });
    expectError(blocked, 429, 'RATE_LIMITED');
    await proxied.http.post('/api/v1/auth/forgot-password').set(from('2001:db8:7:2::1')).send({ email: uniqueEmail('nobody') }).expect(200);
  });

  it('locks one account after 50 failures an hour from any addresses, answering a locked unknown e-mail exactly alike', async () => {
    const victim = await user();
    const unknown = uniqueEmail('ghost');
    await failFrom(victim.email, 50, (i) => `198.18.1.${i + 1}`);
    await failFrom(unknown, 50, (i) => `198.18.2.${i + 1}`);
    const locked = await logIn(proxied, victim.email, victim.password, from('198.18.1.200'));
    const lockedUnknown = await logIn(proxied, unknown, victim.password, from('198.18.2.200'));
    expectError(locked, 429, 'RATE_LIMITED');
    const shape = (res: typeof locked) => ({
      status: res.status,
      code: res.body.error.code,
      message: String(res.body.error.message).replace(/\d+/g, 'N'),
      keys: Object.keys(res.body.error).sort(),
      limit: res.headers['ratelimit-limit'],
      remaining: res.headers['ratelimit-remaining'],
      retryAfter: Math.round(Number(res.headers['retry-after']) / 60),
    });
    expect(shape(lockedUnknown)).toEqual(shape(locked));
    expect(locked.headers['ratelimit-limit']).toBe('50');
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(3000);
    // Another account is not affected.
    const other = await user();
    await logIn(proxied, other.email, other.password, from('198.18.1.200')).expect(200);
  });

  it('ends the lock with the owner’s password reset; the address that reset keeps signing in while a flood locks the account again', async () => {
    const victim = await user();
    await failFrom(victim.email, 50, (i) => `198.18.3.${i + 1}`);
    const owner = from('2001:db8:9:9::1');
    expectError(await logIn(proxied, victim.email, victim.password, owner), 429, 'RATE_LIMITED');
    // The reset token as verify-reset-code hands it out (that step has its own suite).
    const token = randomBytes(32).toString('base64url');
    await t.dataSource.query(`INSERT INTO password_reset_tokens (token_hash, user_id, expires_at) VALUES ($1, $2, now() + interval '15 minutes')`, [
      createHash('sha256').update(token).digest('hex'),
      victim.id,
    ]);
    const newPassword = 'a-new-password-after-lock';
    secrets.push(newPassword);
    await proxied.http.post('/api/v1/auth/reset-password').set(owner).send({ token, password: newPassword, passwordConfirm: newPassword }).expect(200);
    await logIn(proxied, victim.email, newPassword, owner).expect(200);
    await logIn(proxied, victim.email, newPassword, from('198.18.3.100')).expect(200);
    // The flood goes on and locks the account again, but not for the network that reset the password.
    await failFrom(victim.email, 50, (i) => `198.18.4.${i + 1}`);
    expectError(await logIn(proxied, victim.email, newPassword, from('198.18.3.101')), 429, 'RATE_LIMITED');
    await logIn(proxied, victim.email, newPassword, from('2001:db8:9:9::abc')).expect(200);
  });

  it('never writes a password to the log', () => {
    for (const app of [t, replica, proxied]) expect(app.logs.leaksOf(secrets)).toEqual([]);
  });
});
