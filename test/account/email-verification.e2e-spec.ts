import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { SmtpTestServer } from '#libs/testing';
import { ACCOUNT_MAILS, confirmEmail, mailedCode } from '../support/account-mails.js';
import { grantBetaAccess } from '../support/api-access.js';
import { startWithDatabase, type TestApp } from '../support/test-apps.js';
import { bearer, expectError, logIn, signUp, strongPassword, uniqueEmail, type SignedUp } from '../auth/helpers.js';

describe('e-mail verification and change of e-mail', () => {
  const smtp = new SmtpTestServer();
  let t: TestApp;

  beforeAll(async () => {
    await smtp.start();
    t = await startWithDatabase('todo-api', { SMTP_URL: smtp.url, MAIL_FROM: 'accounts@todo.test' });
  });
  afterAll(async () => {
    await t?.close();
    await smtp.stop();
  });
  beforeEach(() => t.rateLimits.clear());

  const me = async (token: string) => (await t.http.get('/api/v1/auth/verify').set(bearer(token)).expect(200)).body.data.user;
  const verifyEmail = (token: string) => t.http.post('/api/v1/auth/verify-email').send({ token });
  const activityTypes = async (token: string): Promise<string[]> =>
    (await t.http.get('/api/v1/account/activity').set(bearer(token)).expect(200)).body.data.activity.map((entry: { type: string }) => entry.type);

  /** Signs up and confirms the address with the mailed code. */
  async function verifiedUser(): Promise<SignedUp> {
    const user = await signUp(t);
    await confirmEmail(t, smtp, user.email);
    return user;
  }

  describe('verification', () => {
    it('signup mails a code; using it sets email_confirmed in the published User record, once', async () => {
      const user = await signUp(t);
      expect((await me(user.token)).email_confirmed).toBe(0);
      const mail = await smtp.waitFor(user.email, 0, ACCOUNT_MAILS.verifyEmail);
      expect(mail.from).toBe('accounts@todo.test');
      const code = mailedCode(mail);

      const res = await verifyEmail(code).expect(200);
      expect(res.body).toEqual({ success: true, data: { message: expect.any(String) } });
      expect((await me(user.token)).email_confirmed).toBe(1);
      expect((await logIn(t, user.email, user.password).expect(200)).body.data.user.email_confirmed).toBe(1);
      expect(await activityTypes(user.token)).toContain('email_verified');

      // Single use.
      expectError(await verifyEmail(code), 400, 'INVALID_TOKEN');
      // Stored hashed: the code itself is nowhere in the table.
      const stored: Array<{ token_hash: string }> = await t.dataSource.query(`SELECT token_hash FROM email_tokens WHERE user_id = $1`, [user.userId]);
      expect(stored.length).toBeGreaterThan(0);
      expect(stored.map((row) => row.token_hash)).not.toContain(code);
    });

    it('an expired code does not work', async () => {
      const user = await signUp(t);
      const code = mailedCode(await smtp.waitFor(user.email, 0, ACCOUNT_MAILS.verifyEmail));
      await t.dataSource.query(`UPDATE email_tokens SET expires_at = now() - interval '1 second' WHERE user_id = $1`, [user.userId]);
      expectError(await verifyEmail(code), 400, 'INVALID_TOKEN');
      expect((await me(user.token)).email_confirmed).toBe(0);
    });

    it('a resent code replaces the previous one; resends are budgeted (429 with Retry-After)', async () => {
      const user = await signUp(t);
      const first = mailedCode(await smtp.waitFor(user.email, 0, ACCOUNT_MAILS.verifyEmail));
      const statuses: number[] = [];
      let refused: { headers: Record<string, string>; body: unknown } | undefined;
      for (let i = 0; i < 4; i++) {
        const res = await t.http.post('/api/v1/auth/verify-email/resend').set(bearer(user.token)).send({});
        statuses.push(res.status);
        if (res.status === 429) refused = res;
      }
      expect(statuses).toEqual([200, 200, 200, 429]);
      expect(Number(refused!.headers['retry-after'])).toBeGreaterThan(0);
      expectError(refused as never, 429, 'RATE_LIMITED');

      const latest = mailedCode(await smtp.waitFor(user.email, 3, ACCOUNT_MAILS.verifyEmail));
      expectError(await verifyEmail(first), 400, 'INVALID_TOKEN');
      await verifyEmail(latest).expect(200);
    });

    it('the public code routes answer every code that does not work alike (unknown, used, another kind)', async () => {
      const user = await verifiedUser();
      const unknown = await verifyEmail('A'.repeat(43));
      const used = await verifyEmail(mailedCode(smtp.to(user.email, ACCOUNT_MAILS.verifyEmail).at(-1)!));
      const confirmUnknown = await t.http.post('/api/v1/account/email/confirm').send({ token: 'A'.repeat(43) });
      const revertUnknown = await t.http.post('/api/v1/account/email/revert').send({ token: 'A'.repeat(43) });
      for (const res of [unknown, used, confirmUnknown, revertUnknown]) expectError(res, 400, 'INVALID_TOKEN');
      expect(new Set([unknown, used, confirmUnknown, revertUnknown].map((res) => JSON.stringify(res.body.error)))).toEqual(new Set([JSON.stringify(unknown.body.error)]));
    });

    it('an unverified account is answered by the published routes as before: signup, login, refresh, API keys', async () => {
      const email = uniqueEmail('unverified');
      const password = strongPassword();
      const signup = await t.http.post('/api/v1/auth/signup').send({ email, password, passwordConfirm: password }).expect(201);
      expect(Object.keys(signup.body.data).sort()).toEqual(['refreshToken', 'token', 'user']);
      expect(signup.body.data.user).toEqual(expect.objectContaining({ email, email_confirmed: 0 }));
      const login = await logIn(t, email, password).expect(200);
      expect(Object.keys(login.body.data).sort()).toEqual(['refreshToken', 'token', 'user']);
      await t.http.post('/api/v1/auth/refresh').send({ refreshToken: login.body.data.refreshToken }).expect(200);
      await grantBetaAccess(t.dataSource, signup.body.data.user.id);
      await t.http.post('/api/v1/auth/api-keys').set(bearer(login.body.data.token)).send({ name: 'unverified' }).expect(201);
      await t.http.get('/api/v1/billing/subscription').set(bearer(login.body.data.token)).expect(200);
    });
  });

  describe('new sign-in notice', () => {
    it('mails the account when it signs in from a device none of its sessions used, once per device, without quoting the device', async () => {
      const user = await signUp(t, { email: uniqueEmail('devices') });
      await logIn(t, user.email, user.password).expect(200);
      const phishy = 'Mozilla/5.0 see http://phish.example/reset';
      await logIn(t, user.email, user.password, { 'User-Agent': phishy }).expect(200);
      const notice = await smtp.waitFor(user.email, 0, ACCOUNT_MAILS.newSignIn);
      expect(notice.raw).not.toContain('phish');
      await logIn(t, user.email, user.password, { 'User-Agent': phishy }).expect(200);
      await logIn(t, user.email, user.password).expect(200);
      // A new device last: its notice (a lookup, a counter and an SMTP exchange) comes after the known devices' lookups.
      await logIn(t, user.email, user.password, { 'User-Agent': 'Another device/1.0' }).expect(200);
      await smtp.waitFor(user.email, 1, ACCOUNT_MAILS.newSignIn);
      expect(smtp.to(user.email, ACCOUNT_MAILS.newSignIn)).toHaveLength(2);
    });
  });

  describe('change of e-mail', () => {
    const requestChange = (token: string, body: Record<string, unknown>) => t.http.post('/api/v1/account/email').set(bearer(token)).send(body);

    it('needs the current password and a confirmed address', async () => {
      const unverified = await signUp(t);
      expectError(await requestChange(unverified.token, { email: uniqueEmail('new'), currentPassword: 'wrong-password' }), 401, 'INVALID_CREDENTIALS');
      expectError(await requestChange(unverified.token, { email: uniqueEmail('new'), currentPassword: unverified.password }), 403, 'EMAIL_NOT_VERIFIED');
    });

    it('round trip: confirm at the new address, notice to the old one, revert within 7 days', async () => {
      const user = await verifiedUser();
      const other = await logIn(t, user.email, user.password).expect(200);
      const newEmail = uniqueEmail('moved');
      const asked = await requestChange(user.token, { email: newEmail.toUpperCase(), currentPassword: user.password }).expect(200);
      expect(asked.body).toEqual({ success: true, data: { message: expect.any(String) } });
      const confirmCode = mailedCode(await smtp.waitFor(newEmail, 0, ACCOUNT_MAILS.confirmNewEmail));
      expect((await me(user.token)).email).toBe(user.email);

      await t.http.post('/api/v1/account/email/confirm').send({ token: confirmCode }).expect(200);
      expect(await me(user.token)).toEqual(expect.objectContaining({ email: newEmail.toUpperCase(), email_confirmed: 1 }));
      await logIn(t, newEmail, user.password).expect(200);
      expectError(await logIn(t, user.email, user.password), 401, 'INVALID_CREDENTIALS');
      expectError(await t.http.post('/api/v1/account/email/confirm').send({ token: confirmCode }), 400, 'INVALID_TOKEN');

      const notice = await smtp.waitFor(user.email, 0, ACCOUNT_MAILS.emailChanged);
      expect(notice.raw.replace(/=\r?\n/g, '')).toContain(newEmail.toUpperCase());
      const revertCode = mailedCode(notice);
      const reverted = await t.http.post('/api/v1/account/email/revert').send({ token: revertCode }).expect(200);
      expect(reverted.body).toEqual({ success: true, data: { message: expect.any(String) } });

      // The old address is back (confirmed) and every session was signed out.
      for (const token of [user.token, other.body.data.token]) expectError(await t.http.get('/api/v1/auth/verify').set(bearer(token)), 401, 'AUTH_REQUIRED');
      const back = await logIn(t, user.email, user.password).expect(200);
      expect(back.body.data.user).toEqual(expect.objectContaining({ email: user.email, email_confirmed: 1 }));
      expectError(await logIn(t, newEmail, user.password), 401, 'INVALID_CREDENTIALS');
      expectError(await t.http.post('/api/v1/account/email/revert').send({ token: revertCode }), 400, 'INVALID_TOKEN');
      expect(await activityTypes(back.body.data.token)).toEqual(expect.arrayContaining(['email_verified', 'email_change_requested', 'email_changed', 'email_reverted']));
    });

    it('answers a taken address and a free one alike, and mails only the free one', async () => {
      const user = await verifiedUser();
      const holder = await signUp(t);
      const free = uniqueEmail('free');
      const taken = await requestChange(user.token, { email: holder.email, currentPassword: user.password }).expect(200);
      const available = await requestChange(user.token, { email: free, currentPassword: user.password }).expect(200);
      expect(taken.body).toEqual(available.body);
      await smtp.waitFor(free, 0, ACCOUNT_MAILS.confirmNewEmail);
      expect(smtp.to(holder.email, ACCOUNT_MAILS.confirmNewEmail)).toHaveLength(0);
    });

    it('a confirmation for an address another account took meanwhile is 409 EMAIL_TAKEN, as at signup', async () => {
      const user = await verifiedUser();
      const wanted = uniqueEmail('race');
      await requestChange(user.token, { email: wanted, currentPassword: user.password }).expect(200);
      const code = mailedCode(await smtp.waitFor(wanted, 0, ACCOUNT_MAILS.confirmNewEmail));
      await signUp(t, { email: wanted.toUpperCase() });
      expectError(await t.http.post('/api/v1/account/email/confirm').send({ token: code }), 409, 'EMAIL_TAKEN');
      expect((await me(user.token)).email).toBe(user.email);
    });

    it('is budgeted per session (429 with Retry-After)', async () => {
      const user = await verifiedUser();
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) statuses.push((await requestChange(user.token, { email: uniqueEmail('many'), currentPassword: 'wrong-password' })).status);
      expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
    });

    it('account deletion removes its e-mail tokens', async () => {
      const user = await verifiedUser();
      const pending = uniqueEmail('gone');
      await requestChange(user.token, { email: pending, currentPassword: user.password }).expect(200);
      await smtp.waitFor(pending, 0, ACCOUNT_MAILS.confirmNewEmail);
      const before: unknown[] = await t.dataSource.query(`SELECT 1 FROM email_tokens WHERE user_id = $1`, [user.userId]);
      expect(before.length).toBeGreaterThan(0);
      await t.http.delete('/api/v1/account').set(bearer(user.token)).send({ password: user.password, confirmText: 'DELETE' }).expect(200);
      expect(await t.dataSource.query(`SELECT 1 FROM email_tokens WHERE user_id = $1`, [user.userId])).toEqual([]);
    });
  });
});
