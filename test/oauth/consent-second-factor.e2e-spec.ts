import { createHash, randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { generate } from 'otplib';
import supertest from 'supertest';
import { freePort, SmtpTestServer } from '#libs/testing';
import { bearer, signUp, type SignedUp } from '../auth/helpers.js';
import { confirmEmail } from '../support/account-mails.js';
import { startWithDatabase, type TestApp } from '../support/test-apps.js';

const REDIRECT = 'http://127.0.0.1:9/agent/callback';

/** The code an authenticator app shows `steps` time steps from now, away from a step's last seconds. */
async function codeAt(secret: string, steps = 0): Promise<string> {
  const into = (Date.now() / 1000) % 30;
  if (into > 27) await sleep((30 - into) * 1000 + 50);
  return generate({ secret, epoch: Math.floor(Date.now() / 1000) + steps * 30 });
}

/**
 * The OAuth sign-in page of an account with a second factor (issue 29): the right password alone connects no app;
 * the page then asks for a TOTP or recovery code, judged, budgeted and used up as at POST /api/v1/auth/mfa/verify.
 */
describe('OAuth sign-in page with a second factor', () => {
  const smtp = new SmtpTestServer();
  let t: TestApp;
  let base: string;
  let clientId: string;

  beforeAll(async () => {
    await smtp.start();
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    t = await startWithDatabase('todo-api', { PUBLIC_BASE_URL: base, SMTP_URL: smtp.url }, { port });
    const registered = await t.http
      .post('/oauth/register')
      .send({ client_name: 'Factor Agent', redirect_uris: [REDIRECT], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' })
      .expect(201);
    clientId = registered.body.client_id;
  });
  afterAll(async () => {
    await t?.close();
    await smtp.stop();
  });

  async function enrolled(): Promise<SignedUp & { secret: string; recoveryCodes: string[] }> {
    const user = await signUp(t);
    await confirmEmail(t, smtp, user.email);
    const secret = (await t.http.post('/api/v1/account/mfa/totp').set(bearer(user.token)).send({ password: user.password }).expect(201)).body.data.secret as string;
    const confirmed = await t.http.post('/api/v1/account/mfa/totp/confirm').set(bearer(user.token)).send({ code: await codeAt(secret, -1) }).expect(200);
    return { ...user, secret, recoveryCodes: confirmed.body.data.recoveryCodes };
  }

  /** A browser at the sign-in page of a new authorization request: the agent and the page's path. */
  async function signInPage(): Promise<{ browser: ReturnType<typeof supertest.agent>; interaction: string }> {
    const challenge = createHash('sha256').update(randomBytes(32).toString('base64url')).digest('base64url');
    const browser = supertest.agent(t.app.getHttpServer());
    const query = { client_id: clientId, redirect_uri: REDIRECT, response_type: 'code', scope: 'todos:read', code_challenge: challenge, code_challenge_method: 'S256', resource: `${base}/api/v1/mcp` };
    const start = await browser.get('/oauth/authorize').query(query).expect(303);
    return { browser, interaction: new URL(start.headers.location, base).pathname };
  }

  /** Follows an answered sign-in back to the app: the code it carries. */
  async function codeFrom(browser: ReturnType<typeof supertest.agent>, submitted: { headers: Record<string, string> }): Promise<string | null> {
    const resumed = await browser.get(new URL(submitted.headers.location, base).pathname).expect(303);
    return new URL(resumed.headers.location).searchParams.get('code');
  }

  it('asks for the code after the right password, refuses a wrong one, and connects the app with the right one', async () => {
    const user = await enrolled();
    const { browser, interaction } = await signInPage();
    const form = { scope: 'todos:read', decision: 'allow' };
    const asked = await browser.post(interaction).type('form').send({ email: user.email, password: user.password, ...form });
    expect(asked.status).toBe(200);
    expect(asked.text).toContain('name="code"');
    expect(asked.text).not.toContain('name="password"');

    // The code step cannot be skipped: a form without it (or with a password) connects nothing.
    const skipped = await browser.post(interaction).type('form').send({ email: user.email, password: user.password, ...form });
    expect(skipped.status).toBe(401);
    const wrong = await browser.post(interaction).type('form').send({ code: '000000' === (await codeAt(user.secret)) ? '111111' : '000000', ...form });
    expect(wrong.status).toBe(401);
    expect(wrong.text).toContain('The code is wrong');
    expect(wrong.text).toContain('name="code"');

    const submitted = await browser.post(interaction).type('form').send({ code: await codeAt(user.secret), ...form }).expect(303);
    expect(await codeFrom(browser, submitted)).toEqual(expect.any(String));
  });

  it('takes a recovery code once', async () => {
    const user = await enrolled();
    const form = { scope: 'todos:read', decision: 'allow' };
    const first = await signInPage();
    await first.browser.post(first.interaction).type('form').send({ email: user.email, password: user.password, ...form }).expect(200);
    const submitted = await first.browser.post(first.interaction).type('form').send({ code: user.recoveryCodes[0], ...form }).expect(303);
    expect(await codeFrom(first.browser, submitted)).toEqual(expect.any(String));

    const second = await signInPage();
    await second.browser.post(second.interaction).type('form').send({ email: user.email, password: user.password, ...form }).expect(200);
    expect((await second.browser.post(second.interaction).type('form').send({ code: user.recoveryCodes[0], ...form })).status).toBe(401);
  });

  it('connects an account without a second factor with its password alone, as before', async () => {
    const user = await signUp(t);
    const { browser, interaction } = await signInPage();
    const submitted = await browser.post(interaction).type('form').send({ email: user.email, password: user.password, scope: 'todos:read', decision: 'allow' }).expect(303);
    expect(await codeFrom(browser, submitted)).toEqual(expect.any(String));
  });
});
