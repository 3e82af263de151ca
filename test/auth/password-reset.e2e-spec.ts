import { existsSync, readdirSync, readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { SMTPServer } from 'smtp-server';
import { canonicalEmailDigest } from '#libs/identity';
import { rateLimitCounterKey, rateLimitTrackerOf } from '#libs/common';
import { SmtpTestServer, type ReceivedMail } from '#libs/testing';
import { RESET_BUCKETS } from '../../libs/identity/src/sign-in/reset-code-rate-limiter.service.js';
import { startApp, startWithDatabase, type TestApp } from '../support/test-apps.js';
import { bearer, expectError, logIn, signUp, strongPassword, uniqueEmail, type SignedUp } from './helpers.js';
import { ACCOUNT_MAILS } from '../support/account-mails.js';

/** The 6-digit code of a received reset mail. */
function codeOf(mail: ReceivedMail): string {
  const match = /reset code is (\d{6})/.exec(mail.raw);
  if (!match) throw new Error('no code in the mail');
  return match[1];
}

describe('password reset and change', () => {
  const smtp = new SmtpTestServer();
  let t: TestApp & { database: { url: string } };
  const secrets: string[] = [];

  beforeAll(async () => {
    await smtp.start();
    t = await startWithDatabase('todo-api', { SMTP_URL: smtp.url, MAIL_FROM: 'accounts@todo.test' });
  });
  afterAll(async () => {
    await t?.close();
    await smtp.stop();
  });
  // Every request here comes from 127.0.0.1: each test starts with the reset budgets of that
  // address unspent (they have their own suite, test/auth/auth-budgets).
  beforeEach(() => t.rateLimits.clear());

  async function fresh(): Promise<SignedUp> {
    const user = await signUp(t);
    secrets.push(user.password, user.token, user.refreshToken);
    return user;
  }

  /** Asks for a code and reads it from the SMTP server. */
  async function requestCode(email: string): Promise<string> {
    const before = smtp.to(email, ACCOUNT_MAILS.resetCode).length;
    await t.http.post('/api/v1/auth/forgot-password').send({ email }).expect(200);
    const code = codeOf(await smtp.waitFor(email, before, ACCOUNT_MAILS.resetCode));
    secrets.push(code);
    return code;
  }

  const verifyCode = (email: string, code: string) => t.http.post('/api/v1/auth/verify-reset-code').send({ email, code });
  const resetPassword = (body: Record<string, unknown>) => t.http.post('/api/v1/auth/reset-password').send(body);

  describe('the full reset flow', () => {
    it('mails a code, trades it for a token, sets the password and revokes every session', async () => {
      const user = await fresh();
      const second = await logIn(t, user.email, user.password).expect(200);
      const code = await requestCode(user.email.toUpperCase());
      const mail = smtp.to(user.email, ACCOUNT_MAILS.resetCode).at(-1)!;
      expect(mail.from).toBe('accounts@todo.test');
      expect(mail.raw).toContain('Subject: Your password reset code');

      const verified = await verifyCode(user.email, code).expect(200);
      expect(verified.body).toEqual({ success: true, data: { token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) } });
      const resetToken = verified.body.data.token;
      const newPassword = strongPassword();
      secrets.push(resetToken, newPassword);

      const res = await resetPassword({ token: resetToken, password: newPassword, passwordConfirm: newPassword }).expect(200);
      expect(res.body).toEqual({ success: true, data: { message: expect.any(String) } });

      for (const token of [user.token, second.body.data.token]) expectError(await t.http.get('/api/v1/auth/verify').set(bearer(token)), 401, 'AUTH_REQUIRED');
      expectError(await t.http.post('/api/v1/auth/refresh').send({ refreshToken: user.refreshToken }), 401, 'INVALID_TOKEN');
      expectError(await logIn(t, user.email, user.password), 401, 'INVALID_CREDENTIALS');
      await logIn(t, user.email, newPassword).expect(200);

      // Single use: the token and the code are spent.
      expectError(await resetPassword({ token: resetToken, password: newPassword, passwordConfirm: newPassword }), 400, 'INVALID_TOKEN');
      expectError(await verifyCode(user.email, code), 400, 'INVALID_RESET_CODE');
    });

    it('answers known and unknown e-mails with the same 200 body and mails only the known one', async () => {
      const user = await fresh();
      const stranger = uniqueEmail('stranger');
      const known = await t.http.post('/api/v1/auth/forgot-password').send({ email: user.email }).expect(200);
      const unknown = await t.http.post('/api/v1/auth/forgot-password').send({ email: stranger }).expect(200);
      expect(known.body).toEqual(unknown.body);
      expect(known.body).toEqual({ success: true, data: { message: expect.any(String) } });
      await smtp.waitFor(user.email, 0, ACCOUNT_MAILS.resetCode);
      expect(smtp.to(stranger)).toHaveLength(0);
    });

    it('answers before looking the account up or mailing: a slow mail server does not slow the answer', async () => {
      const slow = new SMTPServer({
        authOptional: true,
        disabledCommands: ['STARTTLS'],
        logger: false,
        onRcptTo: (_address, _session, callback) => void setTimeout(callback, 1500),
        onData: (stream, _session, callback) => {
          stream.on('data', () => undefined);
          stream.on('end', () => callback());
        },
      });
      await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', () => resolve()));
      const port = ((slow as unknown as { server: { address(): AddressInfo } }).server.address()).port;
      const app = await startApp('todo-api', t.database.url, { SMTP_URL: `smtp://127.0.0.1:${port}` });
      try {
        const user = await fresh();
        for (const email of [user.email, uniqueEmail('stranger')]) {
          const started = performance.now();
          await app.http.post('/api/v1/auth/forgot-password').send({ email }).expect(200);
          expect(performance.now() - started).toBeLessThan(1000);
        }
      } finally {
        await app.close(); // waits for the pending delivery
        await new Promise<void>((resolve) => slow.close(() => resolve()));
      }
    });

    it('without SMTP_URL writes the mail to DATA_DIR/outbox and logs no code', async () => {
      const app = await startApp('todo-api', t.database.url);
      try {
        const user = await fresh();
        await app.http.post('/api/v1/auth/forgot-password').send({ email: user.email }).expect(200);
        const outbox = join(app.config.dataDir, 'outbox');
        let mail: { to: string; text: string } | undefined;
        for (let i = 0; i < 100 && !mail; i++) {
          const files = existsSync(outbox) ? readdirSync(outbox) : [];
          mail = files.map((file) => JSON.parse(readFileSync(join(outbox, file), 'utf8'))).find((stored) => stored.to === user.email);
          if (!mail) await sleep(25);
        }
        const code = /reset code is (\d{6})/.exec(mail!.text)![1];
        secrets.push(code);
        // Apps in one process share pino's logger: look at both captures.
        const logged = [...t.logs.lines, ...app.logs.lines];
        expect(logged.filter((line) => line.includes('mail written to the outbox') && line.includes(user.email))).toHaveLength(1);
        expect(logged.filter((line) => line.includes(code) || line.includes(user.password))).toEqual([]);
        await verifyCode(user.email, code).expect(200);
      } finally {
        await app.close();
      }
    });

    it('keeps only the newest code', async () => {
      const user = await fresh();
      const first = await requestCode(user.email);
      const second = await requestCode(user.email);
      if (first !== second) expectError(await verifyCode(user.email, first), 400, 'INVALID_RESET_CODE');
      await verifyCode(user.email, second).expect(200);
    });
  });

  describe('POST /api/v1/auth/verify-reset-code', () => {
    it('allows 5 wrong tries per caller: after them even the right code is refused with 400 INVALID_RESET_CODE, and a new code starts over', async () => {
      const user = await fresh();
      const code = await requestCode(user.email);
      const wrong = code === '000000' ? '000001' : '000000';
      for (let i = 1; i <= 5; i++) {
        const res = await verifyCode(user.email, wrong);
        expectError(res, 400, 'INVALID_RESET_CODE');
        expect(res.headers['ratelimit-remaining']).toBe(String(5 - i));
      }
      const refused = await verifyCode(user.email, code);
      expectError(refused, 400, 'INVALID_RESET_CODE');
      expect(refused.body.error.message).toBe('The reset code is invalid or expired');
      expect(refused.headers['ratelimit-remaining']).toBe('0');
      // A new code gives this caller its tries back.
      const renewed = await requestCode(user.email);
      await verifyCode(user.email, renewed).expect(200);
    });

    it('counts concurrent wrong guesses exactly: at most 5 are judged, the rest refused before the check', async () => {
      const user = await fresh();
      const code = await requestCode(user.email);
      const guesses = Array.from({ length: 12 }, (_, i) => String((Number(code) + 1 + i) % 1_000_000).padStart(6, '0'));
      const results = await Promise.all(guesses.map((guess) => verifyCode(user.email, guess)));
      expect(results.map((r) => r.status)).toEqual(Array(12).fill(400));
      // Only the judged ones reach the e-mail's hourly guess budget.
      const judged = await t.rateLimits.hits(rateLimitCounterKey(RESET_BUCKETS.guessesPerEmail, rateLimitTrackerOf('email', canonicalEmailDigest(user.email))));
      expect(judged).toBe(5);
      expectError(await verifyCode(user.email, code), 400, 'INVALID_RESET_CODE');
    });

    it('refuses an expired code, an unknown e-mail and a malformed body', async () => {
      const user = await fresh();
      const code = await requestCode(user.email);
      await t.dataSource.query(`UPDATE password_reset_codes SET expires_at = now() - interval '1 second' WHERE user_id = $1`, [user.userId]);
      expectError(await verifyCode(user.email, code), 400, 'INVALID_RESET_CODE');
      expectError(await verifyCode(uniqueEmail('ghost'), '123456'), 400, 'INVALID_RESET_CODE');
      expectError(await t.http.post('/api/v1/auth/verify-reset-code').send({ email: user.email }), 400, 'VALIDATION_ERROR');
    });

    it('stores the code only as a keyed hash, valid 15 minutes', async () => {
      const user = await fresh();
      const code = await requestCode(user.email);
      const rows = await t.dataSource.query(
        `SELECT code_hash, round(extract(epoch FROM (expires_at - created_at)))::int AS ttl FROM password_reset_codes WHERE user_id = $1`,
        [user.userId],
      );
      expect(rows[0].ttl).toBe(900);
      expect(rows[0].code_hash).toMatch(/^[0-9a-f]{64}$/);
      expect(rows[0].code_hash).not.toContain(code);
      secrets.push(rows[0].code_hash);
    });
  });

  describe('POST /api/v1/auth/reset-password', () => {
    it('answers a missing, unknown or expired token with 400 INVALID_TOKEN', async () => {
      const password = strongPassword();
      expectError(await resetPassword({ password, passwordConfirm: password }), 400, 'INVALID_TOKEN');
      expectError(await resetPassword({ token: 12345, password, passwordConfirm: password }), 400, 'INVALID_TOKEN');
      expectError(await resetPassword({ token: 'A'.repeat(43), password, passwordConfirm: password }), 400, 'INVALID_TOKEN');
      const user = await fresh();
      const token = (await verifyCode(user.email, await requestCode(user.email)).expect(200)).body.data.token;
      secrets.push(token);
      await t.dataSource.query(`UPDATE password_reset_tokens SET expires_at = now() - interval '1 second' WHERE user_id = $1`, [user.userId]);
      expectError(await resetPassword({ token, password, passwordConfirm: password }), 400, 'INVALID_TOKEN');
      await logIn(t, user.email, user.password).expect(200);
    });

    it('answers a bad password or a different confirmation with 400 VALIDATION_ERROR and keeps the token usable', async () => {
      const user = await fresh();
      const token = (await verifyCode(user.email, await requestCode(user.email)).expect(200)).body.data.token;
      secrets.push(token);
      expectError(await resetPassword({ token, password: 'short', passwordConfirm: 'short' }), 400, 'VALIDATION_ERROR');
      expectError(await resetPassword({ token, password: 'y'.repeat(129), passwordConfirm: 'y'.repeat(129) }), 400, 'VALIDATION_ERROR');
      expectError(await resetPassword({ token, password: strongPassword(), passwordConfirm: strongPassword() }), 400, 'VALIDATION_ERROR');
      expectError(await resetPassword({ token, password: strongPassword() }), 400, 'VALIDATION_ERROR');
      const password = strongPassword();
      await resetPassword({ token, password, passwordConfirm: password }).expect(200);
      secrets.push(password);
    });

    it('lets only one of several concurrent resets with one token succeed', async () => {
      const user = await fresh();
      const token = (await verifyCode(user.email, await requestCode(user.email)).expect(200)).body.data.token;
      const passwords = Array.from({ length: 5 }, () => strongPassword());
      secrets.push(token, ...passwords);
      const results = await Promise.all(passwords.map((password) => resetPassword({ token, password, passwordConfirm: password })));
      expect(results.map((r) => r.status).sort()).toEqual([200, 400, 400, 400, 400]);
      const winner = passwords[results.findIndex((r) => r.status === 200)];
      await logIn(t, user.email, winner).expect(200);
    });
  });

  describe('POST /api/v1/auth/change-password', () => {
    it('changes the password and revokes every session, the caller’s included', async () => {
      const user = await fresh();
      const second = await logIn(t, user.email, user.password).expect(200);
      const newPassword = strongPassword();
      secrets.push(newPassword);
      const res = await t.http
        .post('/api/v1/auth/change-password')
        .set(bearer(user.token))
        .send({ currentPassword: user.password, newPassword, newPasswordConfirm: newPassword })
        .expect(200);
      expect(res.body).toEqual({ success: true, data: { message: expect.any(String) } });
      for (const token of [user.token, second.body.data.token]) expectError(await t.http.get('/api/v1/auth/verify').set(bearer(token)), 401, 'AUTH_REQUIRED');
      expectError(await t.http.post('/api/v1/auth/refresh').send({ refreshToken: second.body.data.refreshToken }), 401, 'INVALID_TOKEN');
      expectError(await logIn(t, user.email, user.password), 401, 'INVALID_CREDENTIALS');
      await logIn(t, user.email, newPassword).expect(200);
    });

    it('also voids an outstanding reset code', async () => {
      const user = await fresh();
      const code = await requestCode(user.email);
      const newPassword = strongPassword();
      await t.http.post('/api/v1/auth/change-password').set(bearer(user.token)).send({ currentPassword: user.password, newPassword, newPasswordConfirm: newPassword }).expect(200);
      expectError(await verifyCode(user.email, code), 400, 'INVALID_RESET_CODE');
    });

    it('answers a wrong current password with 401 INVALID_CREDENTIALS, bad input with 400, no JWT with 401', async () => {
      const user = await fresh();
      const newPassword = strongPassword();
      const change = (body: Record<string, unknown>, token: string | null = user.token) => {
        const request = t.http.post('/api/v1/auth/change-password');
        if (token) request.set(bearer(token));
        return request.send(body);
      };
      expectError(await change({ currentPassword: 'not-the-password', newPassword, newPasswordConfirm: newPassword }), 401, 'INVALID_CREDENTIALS');
      expectError(await change({ currentPassword: user.password, newPassword, newPasswordConfirm: strongPassword() }), 400, 'VALIDATION_ERROR');
      expectError(await change({ currentPassword: user.password, newPassword: 'short', newPasswordConfirm: 'short' }), 400, 'VALIDATION_ERROR');
      expectError(await change({ currentPassword: user.password, newPassword }), 400, 'VALIDATION_ERROR');
      expectError(await change({ currentPassword: user.password, newPassword, newPasswordConfirm: newPassword }, null), 401, 'AUTH_REQUIRED');
      // Nothing changed and the session is still live.
      await t.http.get('/api/v1/auth/verify').set(bearer(user.token)).expect(200);
      await logIn(t, user.email, user.password).expect(200);
    });
  });

  it('never writes a password, token, code or hash to the log', async () => {
    const hashes = await t.dataSource.query(
      `SELECT password_hash AS h FROM users UNION ALL SELECT token_hash FROM password_reset_tokens UNION ALL SELECT code_hash FROM password_reset_codes UNION ALL SELECT refresh_token_hash FROM sessions`,
    );
    expect(t.logs.text()).toContain('Mail sent');
    expect(t.logs.leaksOf([...secrets, ...hashes.map((row: { h: string }) => row.h)])).toEqual([]);
  });
});
