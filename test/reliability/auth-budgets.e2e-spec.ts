import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { insertUser, SmtpTestServer, type ReceivedMail, type TestUser } from '#libs/testing';
import { bearer, expectError as expectErrorOf, strongPassword, uniqueEmail } from '../auth/helpers.js';
import { scrape } from '../support/metrics-scrape.js';
import { startApp, startWithDatabase, type TestApp } from '../support/test-apps.js';
import { writeFigures } from './support/figures.js';
import { ACCOUNT_MAILS } from '../support/account-mails.js';

/**
 * Budgets of the auth routes (issue 13): answers that do not tell registered e-mails from
 * unknown ones, reset-code tries per caller, per-e-mail code and guess budgets, signups per IP
 * and behind sign-ins for hashing, change-password and account deletion per session, admin-key
 * failures per IP. Client IPs come from X-Forwarded-For through a declared proxy.
 */
const ADMIN_KEY = 'admin-key-for-budget-tests-0123456789';
const METRICS_TOKEN = 'metrics-token-for-budget-tests';

let ipCounter = 0;
/** A client address no other test uses. */
function freshIp(): string {
  ipCounter++;
  return `198.51.${100 + Math.floor(ipCounter / 250)}.${(ipCounter % 250) + 1}`;
}
const from = (ip: string) => ({ 'X-Forwarded-For': ip });

function codeOf(mail: ReceivedMail): string {
  const match = /reset code is (\d{6})/.exec(mail.raw);
  if (!match) throw new Error('no code in the mail');
  return match[1];
}

/** For the reliability summary: answers compared for a registered and an unknown e-mail, and budget refusals seen. */
const figures = { enumerationPairsCompared: 0, enumerationPairsMismatched: 0, budgetRefusals429: 0 };

function expectError(res: Parameters<typeof expectErrorOf>[0], status: number, code: string): void {
  if (status === 429) figures.budgetRefusals429++;
  expectErrorOf(res, status, code);
}

/** The answers to a registered and an unknown e-mail must be indistinguishable. */
function expectSameAnswer(unknown: Parameters<typeof observable>[0], known: Parameters<typeof observable>[0]): void {
  figures.enumerationPairsCompared++;
  if (JSON.stringify(observable(unknown)) !== JSON.stringify(observable(known))) figures.enumerationPairsMismatched++;
  expect(observable(unknown)).toEqual(observable(known));
}

/** What a client can observe of an answer, request ids aside. */
function observable(res: { status: number; body: unknown; headers: Record<string, string> }) {
  const headers = Object.fromEntries(
    ['ratelimit-limit', 'ratelimit-remaining', 'retry-after'].filter((name) => res.headers[name] !== undefined).map((name) => [name, res.headers[name]]),
  );
  return { status: res.status, body: res.body, headers };
}

describe('auth budgets', () => {
  const smtp = new SmtpTestServer();
  let t: TestApp & { database: { url: string } };
  /** The same database behind a declared proxy: X-Forwarded-For names the client. */
  let proxied: TestApp;

  beforeAll(async () => {
    await smtp.start();
    t = await startWithDatabase('todo-api', { SMTP_URL: smtp.url, ADMIN_API_KEY: ADMIN_KEY });
    proxied = await startApp('todo-api', t.database.url, { SMTP_URL: smtp.url, ADMIN_API_KEY: ADMIN_KEY, TRUST_PROXY: 'loopback' });
  });
  afterAll(async () => {
    writeFigures('auth-budgets', figures);
    await proxied?.close();
    await t?.close();
    await smtp.stop();
  });

  const forgot = (email: string, ip: string) => proxied.http.post('/api/v1/auth/forgot-password').set(from(ip)).send({ email });
  const verify = (email: string, code: string, ip: string) => proxied.http.post('/api/v1/auth/verify-reset-code').set(from(ip)).send({ email, code });

  async function requestCode(email: string, ip: string): Promise<string> {
    const before = smtp.to(email, ACCOUNT_MAILS.resetCode).length;
    await forgot(email, ip).expect(200);
    return codeOf(await smtp.waitFor(email, before, ACCOUNT_MAILS.resetCode));
  }

  const wrongFor = (code: string, i = 0) => String((Number(code) + 1 + i) % 1_000_000).padStart(6, '0');

  describe('registered and unknown e-mails get the same answers', () => {
    it('verify-reset-code: the same status, code, message and headers, try after try, past the caller’s 5 tries', async () => {
      const member = await insertUser(t.dataSource);
      const code = await requestCode(member.email, freshIp());
      const stranger = uniqueEmail('stranger');
      const [ipA, ipB] = [freshIp(), freshIp()];
      for (let i = 0; i < 7; i++) {
        const known = await verify(member.email, wrongFor(code, i), ipA);
        const unknown = await verify(stranger, wrongFor(code, i), ipB);
        expectSameAnswer(unknown, known);
        expect([known.status, known.body.error.code, known.headers['ratelimit-remaining']]).toEqual([400, 'INVALID_RESET_CODE', String(Math.max(0, 4 - i))]);
      }
    });

    it('forgot-password and login: the same answers for a registered and an unknown e-mail', async () => {
      const member = await insertUser(t.dataSource);
      const stranger = uniqueEmail('stranger');
      const [ipA, ipB] = [freshIp(), freshIp()];
      for (let i = 0; i < 6; i++) {
        expectSameAnswer(await forgot(stranger, ipB), await forgot(member.email, ipA));
      }
      for (let i = 0; i < 11; i++) {
        const login = (email: string, ip: string) => proxied.http.post('/api/v1/auth/login').set(from(ip)).send({ email, password: 'not-the-password' });
        expectSameAnswer(await login(stranger, ipB), await login(member.email, ipA));
      }
    });
  });

  describe('reset codes', () => {
    it('a stranger’s wrong guesses do not spend the owner’s tries', async () => {
      const owner = await insertUser(t.dataSource);
      const ownerIp = freshIp();
      const code = await requestCode(owner.email, ownerIp);
      const attacker = freshIp();
      for (let i = 0; i < 5; i++) expectError(await verify(owner.email, wrongFor(code, i), attacker), 400, 'INVALID_RESET_CODE');
      // Out of tries: the right code is dead for the attacker, and the answer says no more than that.
      expectError(await verify(owner.email, code, attacker), 400, 'INVALID_RESET_CODE');
      const res = await verify(owner.email, code, ownerIp).expect(200);
      expect(res.body.data.token).toEqual(expect.any(String));
    });

    it('limits guesses from one IP across e-mails: 30 an hour, then 429 with Retry-After', async () => {
      const ip = freshIp();
      const statuses: number[] = [];
      for (let i = 0; i < 31; i++) statuses.push((await verify(uniqueEmail('spray'), '123456', ip)).status);
      expect(statuses).toEqual([...Array(30).fill(400), 429]);
      const refused = await verify(uniqueEmail('spray'), '123456', ip);
      expectError(refused, 429, 'RATE_LIMITED');
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(3000);
      expect(refused.headers['ratelimit-limit']).toBe('30');
    });

    it('judges at most 25 guesses per e-mail an hour, from however many addresses', async () => {
      const owner = await insertUser(t.dataSource);
      const code = await requestCode(owner.email, freshIp());
      const statuses: number[] = [];
      for (let ip = 0; ip < 6; ip++) {
        const address = freshIp();
        for (let i = 0; i < 5; i++) statuses.push((await verify(owner.email, wrongFor(code, ip * 5 + i), address)).status);
      }
      expect(statuses).toEqual([...Array(25).fill(400), ...Array(5).fill(429)]);
      // The code itself is not checked any more this hour, from anywhere (the owner asks again later).
      const refused = await verify(owner.email, code, freshIp());
      expectError(refused, 429, 'RATE_LIMITED');
      expect(refused.headers['ratelimit-limit']).toBe('25');
    });

    it('mails at most 5 codes per e-mail an hour, known or not', async () => {
      const owner = await insertUser(t.dataSource);
      const stranger = uniqueEmail('stranger');
      for (const email of [owner.email, stranger]) {
        const statuses: number[] = [];
        for (let i = 0; i < 6; i++) statuses.push((await forgot(email, freshIp())).status);
        expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
      }
      // Exactly 5 mails went out (delivery runs after the answer: wait for the fifth).
      await smtp.waitFor(owner.email, 4, ACCOUNT_MAILS.resetCode);
      expect(smtp.to(owner.email, ACCOUNT_MAILS.resetCode)).toHaveLength(5);
    });
  });

  describe('signup', () => {
    it('allows 30 signups per client IP an hour, then 429 with Retry-After', async () => {
      const ip = freshIp();
      const signup = () => {
        const password = strongPassword();
        return proxied.http.post('/api/v1/auth/signup').set(from(ip)).send({ email: uniqueEmail('bulk'), password });
      };
      const statuses: number[] = [];
      for (let i = 0; i < 31; i++) statuses.push((await signup()).status);
      expect(statuses).toEqual([...Array(30).fill(201), 429]);
      const refused = await signup();
      expectError(refused, 429, 'RATE_LIMITED');
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(3000);
      // Another address still signs up.
      await proxied.http.post('/api/v1/auth/signup').set(from(freshIp())).send({ email: uniqueEmail('other'), password: strongPassword() }).expect(201);
    });

    it('a flood of signups from many addresses does not hold up a login: its check runs before the queued signups', async () => {
      // Real hashing cost, so the flood queues; the order of completions is what is asserted, not time.
      const slow = await startApp('todo-api', t.database.url, { TRUST_PROXY: 'loopback', BCRYPT_COST: '10', METRICS_TOKEN });
      try {
        const member = await insertUser(t.dataSource);
        const finished: string[] = [];
        const signups = Array.from({ length: 40 }, (_, i) =>
          slow.http
            .post('/api/v1/auth/signup')
            .set(from(`203.0.113.${1 + (i % 8)}`))
            .send({ email: uniqueEmail('flood'), password: strongPassword() })
            .then((res) => void finished.push(`signup ${res.status}`)),
        );
        // Wait until most of the flood is queued for hashing, then sign in from elsewhere.
        for (let polls = 0; (await scrape(slow.baseUrl, METRICS_TOKEN)).value('password_hashing_queue_depth') < 30; polls++) {
          if (polls > 400) throw new Error('the signups never queued');
          await sleep(10);
        }
        const login = slow.http
          .post('/api/v1/auth/login')
          .set(from('192.0.2.77'))
          .send({ email: member.email, password: member.password })
          .then((res) => void finished.push(`login ${res.status}`));
        await Promise.all([login, ...signups]);
        expect(finished.filter((entry) => entry === 'signup 201')).toHaveLength(40);
        const signupsAfterLogin = finished.slice(finished.indexOf('login 200') + 1).length;
        // FIFO hashing would run the login after every queued signup; it goes ahead of them.
        expect(signupsAfterLogin).toBeGreaterThanOrEqual(20);
      } finally {
        await slow.close();
      }
    });
  });

  describe('change-password and account deletion are limited per session', () => {
    async function twoSessions(): Promise<{ user: TestUser; stolen: string; owners: string }> {
      const user = await insertUser(t.dataSource);
      return { user, stolen: await t.accessTokenFor(user.id), owners: await t.accessTokenFor(user.id) };
    }

    it('change-password: 5 guesses per session, then 429 even with the right password; the owner’s session is unaffected', async () => {
      const { user, stolen, owners } = await twoSessions();
      const newPassword = strongPassword();
      const change = (token: string, currentPassword: string) =>
        t.http.post('/api/v1/auth/change-password').set(bearer(token)).send({ currentPassword, newPassword, newPasswordConfirm: newPassword });
      for (let i = 0; i < 5; i++) expectError(await change(stolen, `guess-${i}-password`), 401, 'INVALID_CREDENTIALS');
      const refused = await change(stolen, user.password);
      expectError(refused, 429, 'RATE_LIMITED');
      expect(refused.headers['retry-after']).toBeDefined();
      expect(refused.headers['ratelimit-limit']).toBe('5');
      await change(owners, user.password).expect(200);
    });

    it('account deletion: 10 tries per session, then 429; the owner’s session is unaffected', async () => {
      const { user, stolen, owners } = await twoSessions();
      const remove = (token: string, password: string) => t.http.delete('/api/v1/account').set(bearer(token)).send({ password, confirmText: 'DELETE' });
      for (let i = 0; i < 10; i++) expectError(await remove(stolen, `guess-${i}-password`), 401, 'INVALID_CREDENTIALS');
      expectError(await remove(stolen, user.password), 429, 'RATE_LIMITED');
      expectError(await remove(owners, 'still-not-the-password'), 401, 'INVALID_CREDENTIALS');
      await t.http.get('/api/v1/auth/verify').set(bearer(owners)).expect(200);
    });
  });

  describe('admin key', () => {
    const grant = (app: TestApp, key: string, ip: string, userId: string) =>
      app.http.post('/api/v1/billing/beta/grant').set(from(ip)).set('X-Admin-API-Key', key).send({ userId });

    it('allows 10 failures per client IP per 15 minutes, then 429 even for the right key; a right key does not count', async () => {
      const member = await insertUser(t.dataSource);
      const ip = freshIp();
      for (let i = 0; i < 3; i++) await grant(proxied, ADMIN_KEY, ip, member.id).expect(200);
      for (let i = 0; i < 10; i++) {
        const res = await grant(proxied, `${ADMIN_KEY}-${randomBytes(4).toString('hex')}`, ip, member.id);
        expectError(res, 401, 'ADMIN_AUTH_REQUIRED');
      }
      const refused = await grant(proxied, ADMIN_KEY, ip, member.id);
      expectError(refused, 429, 'RATE_LIMITED');
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(800);
      expect(refused.headers['ratelimit-limit']).toBe('10');
      await grant(proxied, ADMIN_KEY, freshIp(), member.id).expect(200);
    });

    it('without ADMIN_API_KEY always answers 401 and counts nothing', async () => {
      const keyless = await startApp('todo-api', t.database.url, { TRUST_PROXY: 'loopback' });
      try {
        const member = await insertUser(t.dataSource);
        const ip = freshIp();
        for (let i = 0; i < 12; i++) expectError(await grant(keyless, 'whatever-key-you-like', ip, member.id), 401, 'ADMIN_AUTH_REQUIRED');
        expect((await keyless.rateLimits.keys()).filter((key) => key.includes(ip))).toEqual([]);
      } finally {
        await keyless.close();
      }
    });
  });
});
