/**
 * The TOTP second factor and its recovery codes (issue 29): enrolment (start, confirm), the sign-in challenge
 * (401 MFA_REQUIRED, then POST /api/v1/auth/mfa/verify answering login's token data), single-use codes (a recovery
 * code once, a TOTP code never twice), budgeted guesses (429), fresh factor checks to disable or to get new recovery
 * codes, the activity log, the export and the deletion. Codes are computed with otplib, as an authenticator app does.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { setTimeout as sleep } from 'node:timers/promises';
import { generate } from 'otplib';
import { SmtpTestServer } from '#libs/testing';
import { bearer, expectError, logIn, signUp, type SignedUp } from './helpers.js';
import { confirmEmail } from '../support/account-mails.js';
import { startWithDatabase, type TestApp } from '../support/test-apps.js';

const PERIOD = 30;

/** Waits out the last seconds of a time step, so a code computed now is judged in the same step by the server. */
async function awayFromStepEdge(): Promise<void> {
  const into = (Date.now() / 1000) % PERIOD;
  if (into > PERIOD - 3) await sleep((PERIOD - into) * 1000 + 50);
}

/** The code an authenticator app shows `steps` time steps from now (-1: the last one, +1: the next one). */
async function codeAt(secret: string, steps = 0): Promise<string> {
  await awayFromStepEdge();
  return generate({ secret, epoch: Math.floor(Date.now() / 1000) + steps * PERIOD });
}

/** A 6-digit code that is none of those the server accepts now. */
async function wrongCode(secret: string): Promise<string> {
  const right = new Set(await Promise.all([-2, -1, 0, 1, 2].map((steps) => codeAt(secret, steps))));
  for (let n = 0; ; n++) {
    const candidate = String(123456 + n * 7919).padStart(6, '0').slice(-6);
    if (!right.has(candidate)) return candidate;
  }
}

describe('second factor (TOTP and recovery codes)', () => {
  const smtp = new SmtpTestServer();
  let t: TestApp & { database: { url: string } };

  beforeAll(async () => {
    await smtp.start();
    t = await startWithDatabase('todo-api', { SMTP_URL: smtp.url });
  });
  afterAll(async () => {
    await t?.close();
    await smtp.stop();
  });
  beforeEach(() => t.rateLimits.clear());

  interface Enrolled extends SignedUp {
    secret: string;
    recoveryCodes: string[];
  }

  /** Signs up and enrols an authenticator, confirmed with the last step's code (leaving the current and next for the test). */
  async function enrolled(): Promise<Enrolled> {
    const user = await signUp(t);
    await confirmEmail(t, smtp, user.email);
    const started = await t.http.post('/api/v1/account/mfa/totp').set(bearer(user.token)).send({ password: user.password }).expect(201);
    const secret = started.body.data.secret as string;
    const confirmed = await t.http.post('/api/v1/account/mfa/totp/confirm').set(bearer(user.token)).send({ code: await codeAt(secret, -1) }).expect(200);
    return { ...user, secret, recoveryCodes: confirmed.body.data.recoveryCodes };
  }

  /** Logs in with the right password: the MFA_REQUIRED answer's challenge token. */
  async function challenge(user: SignedUp): Promise<string> {
    const res = await logIn(t, user.email, user.password);
    expectError(res, 401, 'MFA_REQUIRED');
    return res.body.error.details.challengeToken;
  }

  function verify(body: Record<string, unknown>) {
    return t.http.post('/api/v1/auth/mfa/verify').send(body);
  }

  /** A verify that must pass (a failure shows the error answered). */
  async function verified(body: Record<string, unknown>) {
    const res = await verify(body);
    expect({ status: res.status, error: res.body.error }).toEqual({ status: 200, error: undefined });
    return res;
  }

  async function activityTypes(token: string): Promise<string[]> {
    const res = await t.http.get('/api/v1/account/activity').set(bearer(token)).query({ limit: 100 }).expect(200);
    return res.body.data.activity.map((entry: { type: string }) => entry.type);
  }

  it('enrolling needs a confirmed e-mail address: 403 EMAIL_NOT_VERIFIED (after the password check) until the mailed code is used, then 201', async () => {
    const user = await signUp(t);
    expectError(await t.http.post('/api/v1/account/mfa/totp').set(bearer(user.token)).send({ password: 'not-the-password' }), 401, 'INVALID_CREDENTIALS');
    expectError(await t.http.post('/api/v1/account/mfa/totp').set(bearer(user.token)).send({ password: user.password }), 403, 'EMAIL_NOT_VERIFIED');
    expect((await t.http.get('/api/v1/account/mfa').set(bearer(user.token)).expect(200)).body.data.totpPending).toBe(false);
    await confirmEmail(t, smtp, user.email);
    await t.http.post('/api/v1/account/mfa/totp').set(bearer(user.token)).send({ password: user.password }).expect(201);
  });

  it('enrols: start (secret, otpauth URI, QR) stays pending until a first code confirms it, which hands out ten recovery codes once', async () => {
    const user = await signUp(t);
    await confirmEmail(t, smtp, user.email);
    expectError(await t.http.post('/api/v1/account/mfa/totp').set(bearer(user.token)).send({ password: 'not-the-password' }), 401, 'INVALID_CREDENTIALS');
    const started = await t.http.post('/api/v1/account/mfa/totp').set(bearer(user.token)).send({ password: user.password }).expect(201);
    const { secret, otpauthUri, qrCodeDataUrl, confirmed } = started.body.data;
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(otpauthUri).toMatch(/^otpauth:\/\/totp\//);
    expect(new URL(otpauthUri).searchParams.get('secret')).toBe(secret);
    expect(otpauthUri).toContain(encodeURIComponent(user.email));
    expect(qrCodeDataUrl).toMatch(/^data:image\/png;base64,[A-Za-z0-9+/=]{200,}$/);
    expect(confirmed).toBe(false);
    expect((await t.http.get('/api/v1/account/mfa').set(bearer(user.token)).expect(200)).body.data).toEqual({
      totpEnabled: false,
      totpPending: true,
      totpConfirmedAt: null,
      recoveryCodesRemaining: 0,
      passkeys: 0,
    });
    // Pending: sign-in still asks for the password alone.
    await logIn(t, user.email, user.password).expect(200);

    expectError(await t.http.post('/api/v1/account/mfa/totp/confirm').set(bearer(user.token)).send({ code: await wrongCode(secret) }), 401, 'INVALID_CREDENTIALS');
    const done = await t.http.post('/api/v1/account/mfa/totp/confirm').set(bearer(user.token)).send({ code: await codeAt(secret) }).expect(200);
    const codes: string[] = done.body.data.recoveryCodes;
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    for (const code of codes) expect(code).toMatch(/^[a-z2-9]{5}-[a-z2-9]{5}$/);
    expectError(await t.http.post('/api/v1/account/mfa/totp/confirm').set(bearer(user.token)).send({ code: await codeAt(secret, 1) }), 409, 'CONFLICT');
    expectError(await t.http.post('/api/v1/account/mfa/totp').set(bearer(user.token)).send({ password: user.password }), 409, 'CONFLICT');
    const status = (await t.http.get('/api/v1/account/mfa').set(bearer(user.token)).expect(200)).body.data;
    expect(status).toEqual({ totpEnabled: true, totpPending: false, totpConfirmedAt: expect.any(String), recoveryCodesRemaining: 10, passkeys: 0 });

    // At rest: the secret sealed, the recovery codes hashed.
    const [factor] = await t.dataSource.query(`SELECT secret_sealed FROM totp_factors WHERE user_id = $1`, [user.userId]);
    expect(factor.secret_sealed).not.toContain(secret);
    const stored: Array<{ code_hash: string }> = await t.dataSource.query(`SELECT code_hash FROM recovery_codes WHERE user_id = $1`, [user.userId]);
    expect(stored).toHaveLength(10);
    for (const row of stored) for (const code of codes) expect(row.code_hash).not.toContain(code.replace('-', ''));
    expect(await activityTypes(user.token)).toContain('mfa_enabled');
  });

  it('login of an account with a factor answers 401 MFA_REQUIRED with a challenge; verify with a TOTP code answers login’s token data, and the tokens work', async () => {
    const user = await enrolled();
    const res = await logIn(t, user.email, user.password);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({
      success: false,
      error: {
        code: 'MFA_REQUIRED',
        message: expect.any(String),
        details: { challengeToken: expect.stringMatching(/^mfa_[A-Za-z0-9_-]{43}$/), expiresIn: 300, methods: ['totp', 'recovery_code'] },
      },
    });
    expect(JSON.stringify(res.body)).not.toMatch(/refreshToken|"token"/);

    const signedIn = await verified({ challengeToken: res.body.error.details.challengeToken, code: await codeAt(user.secret) });
    expect(signedIn.body).toEqual({ success: true, data: { token: expect.any(String), refreshToken: expect.any(String), user: expect.objectContaining({ id: user.userId, email: user.email }) } });
    // The same data a login without a factor answers (one DTO).
    const plain = await signUp(t);
    const plainLogin = await logIn(t, plain.email, plain.password).expect(200);
    expect(Object.keys(signedIn.body.data).sort()).toEqual(Object.keys(plainLogin.body.data).sort());
    expect(Object.keys(signedIn.body.data.user).sort()).toEqual(Object.keys(plainLogin.body.data.user).sort());

    const { token, refreshToken } = signedIn.body.data;
    expect((await t.http.get('/api/v1/auth/verify').set(bearer(token)).expect(200)).body.data.user.id).toBe(user.userId);
    const refreshed = await t.http.post('/api/v1/auth/refresh').send({ refreshToken }).expect(200);
    await t.http.get('/api/v1/auth/verify').set(bearer(refreshed.body.data.token)).expect(200);
    const types = await activityTypes(token);
    expect(types[0]).toBe('sign_in');

    // The challenge was used up.
    expectError(await verify({ challengeToken: res.body.error.details.challengeToken, recoveryCode: user.recoveryCodes[0] }), 401, 'INVALID_TOKEN');
  });

  it('accepts a TOTP code once: the same code again, even within its 30 seconds and on a new challenge, is refused', async () => {
    const user = await enrolled();
    const code = await codeAt(user.secret);
    await verified({ challengeToken: await challenge(user), code });
    const replay = await verify({ challengeToken: await challenge(user), code });
    expectError(replay, 401, 'INVALID_CREDENTIALS');
    // A newer code still works.
    await verified({ challengeToken: await challenge(user), code: await codeAt(user.secret, 1) });
  });

  it('accepts one TOTP code for exactly one of two concurrent sign-ins', async () => {
    const user = await enrolled();
    const [first, second] = [await challenge(user), await challenge(user)];
    const code = await codeAt(user.secret);
    const answers = await Promise.all([verify({ challengeToken: first, code }), verify({ challengeToken: second, code })]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 401]);
  });

  it('lets each recovery code sign in once', async () => {
    const user = await enrolled();
    const [code] = user.recoveryCodes;
    const signedIn = await verified({ challengeToken: await challenge(user), recoveryCode: code.toUpperCase() });
    expectError(await verify({ challengeToken: await challenge(user), recoveryCode: code }), 401, 'INVALID_CREDENTIALS');
    await verified({ challengeToken: await challenge(user), recoveryCode: user.recoveryCodes[1] });
    expect((await t.http.get('/api/v1/account/mfa').set(bearer(signedIn.body.data.token)).expect(200)).body.data.recoveryCodesRemaining).toBe(8);
    expect(await activityTypes(signedIn.body.data.token)).toEqual(expect.arrayContaining(['recovery_code_used', 'mfa_challenge_failed']));
  });

  it('refuses a body with both or neither of code and recoveryCode, and an unknown challenge', async () => {
    const user = await enrolled();
    const challengeToken = await challenge(user);
    expectError(await verify({ challengeToken }), 400, 'VALIDATION_ERROR');
    expectError(await verify({ challengeToken, code: await codeAt(user.secret), recoveryCode: user.recoveryCodes[0] }), 400, 'VALIDATION_ERROR');
    expectError(await verify({ challengeToken: 'mfa_unknown', code: await codeAt(user.secret) }), 401, 'INVALID_TOKEN');
  });

  it('budgets wrong codes per account: the 11th guess in 15 minutes is 429 with Retry-After, even with the right code', async () => {
    const user = await enrolled();
    const wrong = await wrongCode(user.secret);
    for (let i = 1; i <= 10; i++) {
      // A new challenge now and then: the budget is the account's, not the challenge's.
      const res = await verify({ challengeToken: await challenge(user), code: wrong });
      expectError(res, 401, 'INVALID_CREDENTIALS');
    }
    const blocked = await verify({ challengeToken: await challenge(user), code: await codeAt(user.secret) });
    expectError(blocked, 429, 'RATE_LIMITED');
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(blocked.headers['retry-after'])).toBeLessThanOrEqual(900);
    // Fresh checks draw on the same budget.
    const signedIn = await (async () => {
      await t.rateLimits.clear();
      return (await verified({ challengeToken: await challenge(user), code: await codeAt(user.secret) })).body.data.token as string;
    })();
    for (let i = 1; i <= 10; i++) await verify({ challengeToken: await challenge(user), recoveryCode: `wrong-${i}` });
    expectError(await t.http.delete('/api/v1/account/mfa/totp').set(bearer(signedIn)).send({ password: user.password, recoveryCode: user.recoveryCodes[0] }), 429, 'RATE_LIMITED');
  });

  it('disables the factor only after a fresh check (password and a code); then sign-in asks for the password alone', async () => {
    const user = await enrolled();
    const token = (await verified({ challengeToken: await challenge(user), code: await codeAt(user.secret) })).body.data.token as string;
    expectError(await t.http.delete('/api/v1/account/mfa/totp').set(bearer(token)).send({ password: user.password }), 400, 'VALIDATION_ERROR');
    expectError(await t.http.delete('/api/v1/account/mfa/totp').set(bearer(token)).send({ password: 'wrong-password-1', recoveryCode: user.recoveryCodes[0] }), 401, 'INVALID_CREDENTIALS');
    expectError(await t.http.delete('/api/v1/account/mfa/totp').set(bearer(token)).send({ password: user.password, code: await wrongCode(user.secret) }), 401, 'INVALID_CREDENTIALS');
    // The refused attempts used nothing up.
    expect((await t.http.get('/api/v1/account/mfa').set(bearer(token)).expect(200)).body.data).toMatchObject({ totpEnabled: true, recoveryCodesRemaining: 10 });
    await t.http.delete('/api/v1/account/mfa/totp').set(bearer(token)).send({ password: user.password, recoveryCode: user.recoveryCodes[0] }).expect(200, { success: true, data: { totpEnabled: false } });
    expect((await t.http.get('/api/v1/account/mfa').set(bearer(token)).expect(200)).body.data).toEqual({ totpEnabled: false, totpPending: false, totpConfirmedAt: null, recoveryCodesRemaining: 0, passkeys: 0 });
    await logIn(t, user.email, user.password).expect(200);
    expectError(await t.http.delete('/api/v1/account/mfa/totp').set(bearer(token)).send({ password: user.password, code: '123456' }), 404, 'NOT_FOUND');
    expect(await activityTypes(token)).toEqual(expect.arrayContaining(['mfa_disabled', 'recovery_code_used', 'mfa_challenge_failed']));
  });

  it('replaces the recovery codes after a fresh check: the earlier ones stop working', async () => {
    const user = await enrolled();
    const token = (await verified({ challengeToken: await challenge(user), recoveryCode: user.recoveryCodes[9] })).body.data.token as string;
    expectError(await t.http.post('/api/v1/account/mfa/recovery-codes').set(bearer(token)).send({ password: 'wrong-password-1', code: await codeAt(user.secret) }), 401, 'INVALID_CREDENTIALS');
    const renewed = await t.http.post('/api/v1/account/mfa/recovery-codes').set(bearer(token)).send({ password: user.password, code: await codeAt(user.secret) }).expect(200);
    const fresh: string[] = renewed.body.data.recoveryCodes;
    expect(fresh).toHaveLength(10);
    expect(fresh.some((code) => user.recoveryCodes.includes(code))).toBe(false);
    expectError(await verify({ challengeToken: await challenge(user), recoveryCode: user.recoveryCodes[0] }), 401, 'INVALID_CREDENTIALS');
    await verified({ challengeToken: await challenge(user), recoveryCode: fresh[0] });
    expect(await activityTypes(token)).toContain('recovery_codes_regenerated');
  });

  it('never gates leaving on a confirmed address: new recovery codes and turning the factor off work for an unconfirmed one', async () => {
    const user = await enrolled();
    // No route unconfirms an address; this fixture state stands for any that would (the gate is enrolment only).
    await t.dataSource.query(`UPDATE users SET email_confirmed = 0 WHERE id = $1`, [user.userId]);
    await t.http.post('/api/v1/account/mfa/recovery-codes').set(bearer(user.token)).send({ password: user.password, recoveryCode: user.recoveryCodes[0] }).expect(200);
    await t.http.delete('/api/v1/account/mfa/totp').set(bearer(user.token)).send({ password: user.password, code: await codeAt(user.secret) }).expect(200);
  });

  it('leaves an account without a factor exactly as before: login answers the token data; password change and deletion need no code', async () => {
    const user = await signUp(t);
    const res = await logIn(t, user.email, user.password).expect(200);
    expect(res.body).toEqual({ success: true, data: { token: expect.any(String), refreshToken: expect.any(String), user: expect.objectContaining({ id: user.userId }) } });
    expectError(await t.http.delete('/api/v1/account/mfa/totp').set(bearer(user.token)).send({ password: user.password, code: '123456' }), 404, 'NOT_FOUND');
    const newPassword = `${user.password}-new`;
    await t.http.post('/api/v1/auth/change-password').set(bearer(res.body.data.token)).send({ currentPassword: user.password, newPassword, newPasswordConfirm: newPassword }).expect(200);
    const token = (await logIn(t, user.email, newPassword).expect(200)).body.data.token as string;
    await t.http.delete('/api/v1/account').set(bearer(token)).send({ password: newPassword, confirmText: 'DELETE' }).expect(200);
  });

  it('asks an account with a factor for a current code to change its password or to delete it: 401 MFA_CODE_REQUIRED without, INVALID_CREDENTIALS wrong, each code once', async () => {
    const user = await enrolled();
    const token = (await verified({ challengeToken: await challenge(user), code: await codeAt(user.secret) })).body.data.token as string;
    const newPassword = `${user.password}-new`;
    const change = (body: Record<string, unknown>) =>
      t.http.post('/api/v1/auth/change-password').set(bearer(token)).send({ currentPassword: user.password, newPassword, newPasswordConfirm: newPassword, ...body });
    expectError(await change({}), 401, 'MFA_CODE_REQUIRED');
    expectError(await change({ code: await wrongCode(user.secret) }), 401, 'INVALID_CREDENTIALS');
    // The code that signed in was used up: it does not pass twice.
    expectError(await change({ code: await codeAt(user.secret) }), 401, 'INVALID_CREDENTIALS');
    await logIn(t, user.email, user.password).expect(401);
    await change({ code: await codeAt(user.secret, 1) }).expect(200);

    const signedIn = (await verified({ challengeToken: (await logIn(t, user.email, newPassword)).body.error.details.challengeToken, recoveryCode: user.recoveryCodes[0] })).body.data.token as string;
    const remove = (body: Record<string, unknown>) => t.http.delete('/api/v1/account').set(bearer(signedIn)).send({ password: newPassword, confirmText: 'DELETE', ...body });
    expectError(await remove({}), 401, 'MFA_CODE_REQUIRED');
    expectError(await remove({ code: user.recoveryCodes[0] }), 401, 'INVALID_CREDENTIALS');
    await remove({ code: user.recoveryCodes[1] }).expect(200, { success: true, data: { deleted: true } });
    expect(await t.dataSource.query(`SELECT id FROM users WHERE id = $1`, [user.userId])).toEqual([]);
  });

  it('shows in the export whether the factor is on (never a secret or a code), and the account’s deletion removes its rows', async () => {
    const user = await enrolled();
    const token = (await verified({ challengeToken: await challenge(user), code: await codeAt(user.secret) })).body.data.token as string;
    await challenge(user);
    const exported = await t.http.get('/api/v1/account/export').set(bearer(token)).expect(200);
    expect(exported.body.data.secondFactor).toEqual({ totpEnabled: true, totpPending: false, totpConfirmedAt: expect.any(String), recoveryCodesRemaining: 10, passkeys: 0 });
    const text = JSON.stringify(exported.body);
    expect(text).not.toContain(user.secret);
    for (const code of user.recoveryCodes) expect(text).not.toContain(code);

    const count = async () =>
      (
        await t.dataSource.query(
          `SELECT (SELECT count(*) FROM totp_factors WHERE user_id = $1) + (SELECT count(*) FROM recovery_codes WHERE user_id = $1) + (SELECT count(*) FROM mfa_challenges WHERE user_id = $1) AS n`,
          [user.userId],
        )
      )[0].n;
    expect(Number(await count())).toBeGreaterThan(11);
    await t.http.delete('/api/v1/account').set(bearer(token)).send({ password: user.password, confirmText: 'DELETE', code: user.recoveryCodes[0] }).expect(200);
    expect(Number(await count())).toBe(0);
  });
});
