/**
 * The breached-password check (issue 29): sign-up, password reset and password change refuse a password the
 * range service (Have I Been Pwned's range API shape, served here by a local stand-in) knows from a breach, send it
 * only the first five hex characters of the SHA-1, and fail open when the service is down, failing or slow.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { freePort, SmtpTestServer } from '#libs/testing';
import { scrape } from '../support/metrics-scrape.js';
import { PwnedRangeServer } from '../support/pwned-range-server.js';
import { startApp, startWithDatabase, type TestApp } from '../support/test-apps.js';
import { bearer, expectError, logIn, signUp, strongPassword, uniqueEmail } from './helpers.js';
import { ACCOUNT_MAILS } from '../support/account-mails.js';

const METRICS_TOKEN = 'metrics-token-for-breach-tests';
const UNAVAILABLE = 'breached_password_checks_unavailable_total';

describe('breached passwords', () => {
  const smtp = new SmtpTestServer();
  const range = new PwnedRangeServer();
  let t: TestApp & { database: { url: string } };

  beforeAll(async () => {
    await smtp.start();
    await range.start();
    t = await startWithDatabase('todo-api', { SMTP_URL: smtp.url, METRICS_TOKEN, BREACHED_PASSWORDS_RANGE_URL: range.url });
  });
  afterAll(async () => {
    await t?.close();
    await range.stop();
    await smtp.stop();
  });
  beforeEach(async () => {
    range.mode = 'normal';
    await t.rateLimits.clear();
  });

  function breachedPassword(): string {
    const password = strongPassword();
    range.addBreached(password);
    return password;
  }

  function expectBreached(res: { status: number; body: any }, password: string): void {
    expectError(res, 400, 'PASSWORD_BREACHED');
    expect(JSON.stringify(res.body)).not.toContain(password);
  }

  it('refuses a breached password at sign-up, sending only the first five hex characters of its SHA-1', async () => {
    const password = breachedPassword();
    const email = uniqueEmail('breached');
    const before = range.requests.length;
    expectBreached(await t.http.post('/api/v1/auth/signup').send({ email, password, passwordConfirm: password }), password);
    const sent = range.requests.slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0].path).toMatch(/^\/range\/[0-9A-F]{5}$/);
    expect(sent[0].headers['add-padding']).toBe('true');
    // No account was made: the e-mail is still free.
    await signUp(t, { email });
  });

  it('accepts a password the range service does not know', async () => {
    const before = range.requests.length;
    const user = await signUp(t);
    expect(range.requests.length).toBe(before + 1);
    await logIn(t, user.email, user.password).expect(200);
  });

  it('refuses a breached new password at password change and keeps the old one', async () => {
    const user = await signUp(t);
    const password = breachedPassword();
    const res = await t.http
      .post('/api/v1/auth/change-password')
      .set(bearer(user.token))
      .send({ currentPassword: user.password, newPassword: password, newPasswordConfirm: password });
    expectBreached(res, password);
    await logIn(t, user.email, user.password).expect(200);
  });

  it('refuses a breached password at reset and keeps the reset token usable', async () => {
    const user = await signUp(t);
    const before = smtp.to(user.email, ACCOUNT_MAILS.resetCode).length;
    await t.http.post('/api/v1/auth/forgot-password').send({ email: user.email }).expect(200);
    const code = /reset code is (\d{6})/.exec((await smtp.waitFor(user.email, before, ACCOUNT_MAILS.resetCode)).raw)![1];
    const token = (await t.http.post('/api/v1/auth/verify-reset-code').send({ email: user.email, code }).expect(200)).body.data.token;
    const password = breachedPassword();
    expectBreached(await t.http.post('/api/v1/auth/reset-password').send({ token, password, passwordConfirm: password }), password);
    await logIn(t, user.email, user.password).expect(200);
    const good = strongPassword();
    await t.http.post('/api/v1/auth/reset-password').send({ token, password: good, passwordConfirm: good }).expect(200);
    await logIn(t, user.email, good).expect(200);
  });

  it('fails open when the range service answers an error, counting it', async () => {
    const before = (await scrape(t.baseUrl, METRICS_TOKEN)).value(UNAVAILABLE, { reason: 'status' });
    range.mode = 'error';
    await signUp(t, { password: breachedPassword() });
    expect((await scrape(t.baseUrl, METRICS_TOKEN)).value(UNAVAILABLE, { reason: 'status' })).toBe(before + 1);
  });

  it('fails open when the range service is down, with one warning for the outage and every check counted', async () => {
    const down = await startApp('todo-api', t.database.url, { METRICS_TOKEN, BREACHED_PASSWORDS_RANGE_URL: `http://127.0.0.1:${await freePort()}` });
    try {
      await signUp(down, { password: breachedPassword() });
      await signUp(down, { password: breachedPassword() });
      expect((await scrape(down.baseUrl, METRICS_TOKEN)).value(UNAVAILABLE, { reason: 'connection' })).toBe(2);
      expect(down.logs.text().match(/range service unavailable/g)).toHaveLength(1);
    } finally {
      await down.close();
    }
  });

  it('fails open when the range service does not answer within the timeout', async () => {
    const slow = await startApp('todo-api', t.database.url, { METRICS_TOKEN, BREACHED_PASSWORDS_RANGE_URL: range.url, BREACHED_PASSWORDS_TIMEOUT_MS: '200' });
    try {
      range.mode = 'hang';
      await signUp(slow, { password: breachedPassword() });
      expect((await scrape(slow.baseUrl, METRICS_TOKEN)).value(UNAVAILABLE, { reason: 'timeout' })).toBe(1);
    } finally {
      await slow.close();
    }
  });
});
