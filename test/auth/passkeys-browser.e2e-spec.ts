/**
 * Passkeys (WebAuthn, issue 29) driven through Chromium's virtual authenticator (CDP WebAuthn): registration (after the
 * password, on a confirmed address), the passkey answering a sign-in's MFA_REQUIRED at mfa/verify, passwordless sign-in
 * with a discoverable credential, replayed and foreign assertions refused, the budgets (429 with Retry-After), the
 * activity log, the export and the removal after a fresh factor check. The page is any page todo-api serves at
 * http://localhost:<port> (browsers refuse IP addresses as relying party id); @simplewebauthn/browser's bundle is
 * injected and called with options fetched from the API.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { addVirtualAuthenticator, freePort, launchBrowser, SmtpTestServer } from '#libs/testing';
import { bearer, expectError, logIn, signUp, type SignedUp } from './helpers.js';
import { confirmEmail } from '../support/account-mails.js';
import { startWithDatabase, type TestApp } from '../support/test-apps.js';

const BROWSER_BUNDLE = join(process.cwd(), 'node_modules', '@simplewebauthn', 'browser', 'dist', 'bundle', 'index.umd.min.js');

type Json = Record<string, any>;

describe('passkeys (WebAuthn) in Chromium', () => {
  const smtp = new SmtpTestServer();
  let t: TestApp & { database: { url: string } };
  let browser: Browser;
  let context: BrowserContext;
  let origin: string;

  beforeAll(async () => {
    await smtp.start();
    const port = await freePort();
    origin = `http://localhost:${port}`;
    t = await startWithDatabase('todo-api', { SMTP_URL: smtp.url, PUBLIC_BASE_URL: origin }, { port });
    browser = await launchBrowser();
    // The bundle is injected into pages whose CSP allows no inline script.
    context = await browser.newContext({ bypassCSP: true });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await smtp.stop();
  });
  beforeEach(() => t.rateLimits.clear());

  /** A page of the service with a virtual authenticator of its own (a platform authenticator holding discoverable passkeys). */
  async function authenticatorPage(): Promise<Page> {
    const page = await context.newPage();
    await page.goto(`${origin}/livez`);
    await addVirtualAuthenticator(page);
    await page.addScriptTag({ path: BROWSER_BUNDLE });
    return page;
  }

  function startRegistration(page: Page, optionsJSON: Json): Promise<Json> {
    return page.evaluate((options) => (globalThis as any).SimpleWebAuthnBrowser.startRegistration({ optionsJSON: options }), optionsJSON);
  }

  function startAuthentication(page: Page, optionsJSON: Json): Promise<Json> {
    return page.evaluate((options) => (globalThis as any).SimpleWebAuthnBrowser.startAuthentication({ optionsJSON: options }), optionsJSON);
  }

  interface WithPasskey extends SignedUp {
    page: Page;
    recoveryCodes: string[];
    passkeyId: string;
    credentialId: string;
  }

  /** Signs up, confirms the address and registers a passkey on a page of its own. */
  async function withPasskey(name = 'Laptop'): Promise<WithPasskey> {
    const user = await signUp(t);
    await confirmEmail(t, smtp, user.email);
    const page = await authenticatorPage();
    const started = await t.http.post('/api/v1/account/passkey-options').set(bearer(user.token)).send({ password: user.password }).expect(200);
    const credential = await startRegistration(page, started.body.data.options);
    const registered = await t.http.post('/api/v1/account/passkeys').set(bearer(user.token)).send({ credential, name });
    expect({ status: registered.status, error: registered.body.error }).toEqual({ status: 201, error: undefined });
    return { ...user, page, recoveryCodes: registered.body.data.recoveryCodes, passkeyId: registered.body.data.passkey.id, credentialId: credential.id };
  }

  async function mfaChallenge(user: SignedUp): Promise<{ challengeToken: string; methods: string[] }> {
    const res = await logIn(t, user.email, user.password);
    expectError(res, 401, 'MFA_REQUIRED');
    return res.body.error.details;
  }

  async function activityTypes(token: string): Promise<string[]> {
    const res = await t.http.get('/api/v1/account/activity').set(bearer(token)).query({ limit: 100 }).expect(200);
    return res.body.data.activity.map((entry: { type: string }) => entry.type);
  }

  it('registers a passkey after the password, on a confirmed address only, with recovery codes for a first factor', async () => {
    const unconfirmed = await signUp(t);
    expectError(await t.http.post('/api/v1/account/passkey-options').set(bearer(unconfirmed.token)).send({ password: 'not-the-password' }), 401, 'INVALID_CREDENTIALS');
    expectError(await t.http.post('/api/v1/account/passkey-options').set(bearer(unconfirmed.token)).send({ password: unconfirmed.password }), 403, 'EMAIL_NOT_VERIFIED');

    const user = await signUp(t);
    await confirmEmail(t, smtp, user.email);
    const page = await authenticatorPage();
    const started = await t.http.post('/api/v1/account/passkey-options').set(bearer(user.token)).send({ password: user.password }).expect(200);
    const options = started.body.data.options;
    expect(options.rp.id).toBe('localhost');
    expect(options.authenticatorSelection).toMatchObject({ residentKey: 'required', userVerification: 'required' });
    const credential = await startRegistration(page, options);
    const registered = await t.http.post('/api/v1/account/passkeys').set(bearer(user.token)).send({ credential, name: 'Work laptop' }).expect(201);
    expect(registered.body.data.passkey).toEqual({ id: expect.any(String), name: 'Work laptop', transports: expect.any(Array), createdAt: expect.any(String), lastUsedAt: null });
    expect(registered.body.data.recoveryCodes).toHaveLength(10);
    // The options were used up: the same answer again is refused.
    expectError(await t.http.post('/api/v1/account/passkeys').set(bearer(user.token)).send({ credential }), 400, 'VALIDATION_ERROR');

    // A second passkey is not the first factor: no new recovery codes; and the first cannot be registered twice.
    const again = await t.http.post('/api/v1/account/passkey-options').set(bearer(user.token)).send({ password: user.password }).expect(200);
    expect(again.body.data.options.excludeCredentials.map((c: Json) => c.id)).toEqual([credential.id]);
    const second = await authenticatorPage();
    const other = await startRegistration(second, again.body.data.options);
    const secondRegistered = await t.http.post('/api/v1/account/passkeys').set(bearer(user.token)).send({ credential: other }).expect(201);
    expect(secondRegistered.body.data.recoveryCodes).toBeNull();
    expect(secondRegistered.body.data.passkey.name).toMatch(/^Passkey \d{4}-\d{2}-\d{2}$/);

    const list = await t.http.get('/api/v1/account/passkeys').set(bearer(user.token)).expect(200);
    expect(list.body.data.passkeys.map((p: Json) => p.name)).toEqual(['Work laptop', secondRegistered.body.data.passkey.name]);
    const renamed = await t.http.patch(`/api/v1/account/passkeys/${secondRegistered.body.data.passkey.id}`).set(bearer(user.token)).send({ name: 'Phone' }).expect(200);
    expect(renamed.body.data.name).toBe('Phone');
    // Another account's passkey is not found.
    expectError(await t.http.patch(`/api/v1/account/passkeys/${secondRegistered.body.data.passkey.id}`).set(bearer(unconfirmed.token)).send({ name: 'Mine' }), 404, 'NOT_FOUND');
    expect((await t.http.get('/api/v1/account/mfa').set(bearer(user.token)).expect(200)).body.data).toMatchObject({ totpEnabled: false, passkeys: 2, recoveryCodesRemaining: 10 });
    expect(await activityTypes(user.token)).toEqual(expect.arrayContaining(['passkey_added', 'mfa_enabled']));
  });

  it('makes sign-in ask for a second factor, which the passkey answers once; a replayed or foreign assertion is refused', async () => {
    const user = await withPasskey();
    const { challengeToken, methods } = await mfaChallenge(user);
    expect(methods).toEqual(['recovery_code', 'passkey']);
    const options = (await t.http.post('/api/v1/auth/mfa/passkey-options').send({ challengeToken }).expect(200)).body.data.options;
    expect(options.allowCredentials.map((c: Json) => c.id)).toEqual([user.credentialId]);
    const assertion = await startAuthentication(user.page, options);
    const verified = await t.http.post('/api/v1/auth/mfa/verify').send({ challengeToken, passkey: assertion });
    expect({ status: verified.status, error: verified.body.error }).toEqual({ status: 200, error: undefined });
    expect(Object.keys(verified.body.data).sort()).toEqual(['refreshToken', 'token', 'user']);
    expect(verified.body.data.user.id).toBe(user.userId);
    await t.http.get('/api/v1/auth/verify').set(bearer(verified.body.data.token)).expect(200);

    // Replayed: the challenge is used up.
    expectError(await t.http.post('/api/v1/auth/mfa/verify').send({ challengeToken, passkey: assertion }), 401, 'INVALID_TOKEN');
    // Replayed on a new challenge: it signed another one.
    const next = await mfaChallenge(user);
    await t.http.post('/api/v1/auth/mfa/passkey-options').send({ challengeToken: next.challengeToken }).expect(200);
    expectError(await t.http.post('/api/v1/auth/mfa/verify').send({ challengeToken: next.challengeToken, passkey: assertion }), 401, 'INVALID_CREDENTIALS');
    // Foreign: another account's passkey signing this challenge.
    const stranger = await withPasskey('Stranger');
    const nextOptions = (await t.http.post('/api/v1/auth/mfa/passkey-options').send({ challengeToken: next.challengeToken }).expect(200)).body.data.options;
    const foreign = await startAuthentication(stranger.page, { ...nextOptions, allowCredentials: [] });
    expect(foreign.id).toBe(stranger.credentialId);
    expectError(await t.http.post('/api/v1/auth/mfa/verify').send({ challengeToken: next.challengeToken, passkey: foreign }), 401, 'INVALID_CREDENTIALS');
    // A code and a passkey at once: refused before anything is checked.
    expectError(await t.http.post('/api/v1/auth/mfa/verify').send({ challengeToken: next.challengeToken, passkey: assertion, recoveryCode: user.recoveryCodes[0] }), 400, 'VALIDATION_ERROR');
    // The owner's own passkey still passes it.
    const own = await startAuthentication(user.page, nextOptions);
    await t.http.post('/api/v1/auth/mfa/verify').send({ challengeToken: next.challengeToken, passkey: own }).expect(200);

    const types = await activityTypes(verified.body.data.token);
    expect(types).toEqual(expect.arrayContaining(['passkey_used', 'mfa_challenge_failed', 'sign_in']));
    const list = (await t.http.get('/api/v1/account/passkeys').set(bearer(verified.body.data.token)).expect(200)).body.data.passkeys;
    expect(list[0].lastUsedAt).toEqual(expect.any(String));
  });

  it('signs in without a password or an e-mail: login’s token data; the same assertion twice is refused', async () => {
    const user = await withPasskey();
    const started = (await t.http.post('/api/v1/auth/passkey/options').expect(200)).body.data;
    expect(started.options.allowCredentials ?? []).toEqual([]);
    expect(started.options.userVerification).toBe('required');
    const assertion = await startAuthentication(user.page, started.options);
    const signedIn = await t.http.post('/api/v1/auth/passkey/verify').send({ credential: assertion });
    expect({ status: signedIn.status, error: signedIn.body.error }).toEqual({ status: 200, error: undefined });
    expect(Object.keys(signedIn.body.data).sort()).toEqual(['refreshToken', 'token', 'user']);
    expect(signedIn.body.data.user).toEqual((await t.http.get('/api/v1/auth/verify').set(bearer(user.token)).expect(200)).body.data.user);
    await t.http.get('/api/v1/auth/verify').set(bearer(signedIn.body.data.token)).expect(200);
    expectError(await t.http.post('/api/v1/auth/passkey/verify').send({ credential: assertion }), 401, 'INVALID_CREDENTIALS');

    // A tampered signature and an unknown credential get the same answer.
    const fresh = await startAuthentication(user.page, (await t.http.post('/api/v1/auth/passkey/options').expect(200)).body.data.options);
    const flipped = Buffer.from(fresh.response.signature, 'base64url');
    flipped[flipped.length - 1] ^= 1;
    const tampered = await t.http.post('/api/v1/auth/passkey/verify').send({ credential: { ...fresh, response: { ...fresh.response, signature: flipped.toString('base64url') } } });
    expectError(tampered, 401, 'INVALID_CREDENTIALS');
    const unknown = await t.http.post('/api/v1/auth/passkey/verify').send({ credential: { ...fresh, id: 'AAAAAAAAAAAAAAAAAAAAAA', rawId: 'AAAAAAAAAAAAAAAAAAAAAA' } });
    expectError(unknown, 401, 'INVALID_CREDENTIALS');
    expect(unknown.body.error.message).toBe(tampered.body.error.message);
    expect(unknown.headers['ratelimit-limit']).toBe(tampered.headers['ratelimit-limit']);

    const types = await activityTypes(signedIn.body.data.token);
    expect(types).toEqual(expect.arrayContaining(['passkey_used', 'sign_in', 'sign_in_failed']));
  });

  it('budgets the passkey routes: 429 with Retry-After', async () => {
    const user = await withPasskey();
    const assertion = await startAuthentication(user.page, (await t.http.post('/api/v1/auth/passkey/options').expect(200)).body.data.options);
    const garbage = { ...assertion, response: { ...assertion.response, signature: 'AAAA' } };
    for (let i = 1; i <= 10; i++) expectError(await t.http.post('/api/v1/auth/passkey/verify').send({ credential: garbage }), 401, 'INVALID_CREDENTIALS');
    // The 11th refused assertion for this account in 15 minutes: not even a right one is checked.
    const blocked = await t.http.post('/api/v1/auth/passkey/verify').send({ credential: assertion });
    expectError(blocked, 429, 'RATE_LIMITED');
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);

    await t.rateLimits.clear();
    for (let i = 1; i <= 30; i++) await t.http.post('/api/v1/auth/passkey/options').expect(200);
    const optionsBlocked = await t.http.post('/api/v1/auth/passkey/options');
    expectError(optionsBlocked, 429, 'RATE_LIMITED');
    expect(Number(optionsBlocked.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('exports the passkeys without keys, removes one after a fresh factor check, and goes with the account', async () => {
    const user = await withPasskey('Desk key');
    const exported = await t.http.get('/api/v1/account/export').set(bearer(user.token)).expect(200);
    expect(exported.body.data.passkeys).toEqual([{ id: user.passkeyId, name: 'Desk key', transports: expect.any(Array), createdAt: expect.any(String), lastUsedAt: null }]);
    expect(JSON.stringify(exported.body.data)).not.toContain(user.credentialId);

    expectError(await t.http.delete(`/api/v1/account/passkeys/${user.passkeyId}`).set(bearer(user.token)).send({ password: 'wrong-password-1', recoveryCode: user.recoveryCodes[0] }), 401, 'INVALID_CREDENTIALS');
    const removed = await t.http.delete(`/api/v1/account/passkeys/${user.passkeyId}`).set(bearer(user.token)).send({ password: user.password, recoveryCode: user.recoveryCodes[1] }).expect(200);
    expect(removed.body.data).toEqual({ removed: true, passkeys: 0 });
    // No second factor left: the recovery codes went with it, and sign-in asks for the password alone.
    expect((await t.http.get('/api/v1/account/mfa').set(bearer(user.token)).expect(200)).body.data).toMatchObject({ passkeys: 0, recoveryCodesRemaining: 0 });
    await logIn(t, user.email, user.password).expect(200);
    expect(await activityTypes(user.token)).toEqual(expect.arrayContaining(['passkey_removed', 'recovery_code_used']));

    const other = await withPasskey();
    const counted = async () => Number((await t.dataSource.query(`SELECT count(*)::int AS n FROM passkeys WHERE user_id = $1`, [other.userId]))[0].n);
    expect(await counted()).toBe(1);
    // A passkey-only account answers the deletion's current-factor check with a recovery code.
    expectError(await t.http.delete('/api/v1/account').set(bearer(other.token)).send({ password: other.password, confirmText: 'DELETE' }), 401, 'MFA_CODE_REQUIRED');
    await t.http.delete('/api/v1/account').set(bearer(other.token)).send({ password: other.password, confirmText: 'DELETE', code: other.recoveryCodes[0] }).expect(200);
    expect(await counted()).toBe(0);
  });
  it('a passkey-only account replaces its recovery codes (and removes a passkey) with a passkey as the fresh factor check', async () => {
    const user = await withPasskey();
    const checkOptions = async () => (await t.http.post('/api/v1/account/passkey-check-options').set(bearer(user.token)).expect(200)).body.data.options;
    const options = await checkOptions();
    expect(options.allowCredentials.map((c: Json) => c.id)).toEqual([user.credentialId]);
    const assertion = await startAuthentication(user.page, options);
    const renewed = await t.http.post('/api/v1/account/mfa/recovery-codes').set(bearer(user.token)).send({ password: user.password, passkey: assertion });
    expect({ status: renewed.status, error: renewed.body.error }).toEqual({ status: 200, error: undefined });
    expect(renewed.body.data.recoveryCodes).toHaveLength(10);
    // The old codes stopped working, the new ones work (a passkey-only account's deletion check takes one later).
    expect(renewed.body.data.recoveryCodes).not.toContain(user.recoveryCodes[0]);
    // The same assertion again: its challenge is used up.
    expectError(await t.http.post('/api/v1/account/mfa/recovery-codes').set(bearer(user.token)).send({ password: user.password, passkey: assertion }), 401, 'INVALID_CREDENTIALS');
    // A right passkey with a wrong password, and a passkey with a code at once.
    const wrongPassword = await startAuthentication(user.page, await checkOptions());
    expectError(await t.http.post('/api/v1/account/mfa/recovery-codes').set(bearer(user.token)).send({ password: 'wrong-password-1', passkey: wrongPassword }), 401, 'INVALID_CREDENTIALS');
    const both = await startAuthentication(user.page, await checkOptions());
    expectError(await t.http.post('/api/v1/account/mfa/recovery-codes').set(bearer(user.token)).send({ password: user.password, passkey: both, recoveryCode: renewed.body.data.recoveryCodes[0] }), 400, 'VALIDATION_ERROR');
    // Another account's passkey answering this account's options is refused.
    const stranger = await withPasskey('Stranger');
    const foreign = await startAuthentication(stranger.page, { ...(await checkOptions()), allowCredentials: [] });
    expect(foreign.id).toBe(stranger.credentialId);
    expectError(await t.http.post('/api/v1/account/mfa/recovery-codes').set(bearer(user.token)).send({ password: user.password, passkey: foreign }), 401, 'INVALID_CREDENTIALS');
    // Options handed out for one account are not the other's to answer, even with its own passkey.
    const strangersOwn = await startAuthentication(stranger.page, { ...(await checkOptions()), allowCredentials: [] });
    expectError(await t.http.post('/api/v1/account/mfa/recovery-codes').set(bearer(stranger.token)).send({ password: stranger.password, passkey: strangersOwn }), 401, 'INVALID_CREDENTIALS');
    await t.rateLimits.clear();

    // The same proof removes the passkey (the one fresh check of every such route).
    const removal = await startAuthentication(user.page, await checkOptions());
    const removed = await t.http.delete(`/api/v1/account/passkeys/${user.passkeyId}`).set(bearer(user.token)).send({ password: user.password, passkey: removal });
    expect({ status: removed.status, error: removed.body.error }).toEqual({ status: 200, error: undefined });
    expect(removed.body.data).toEqual({ removed: true, passkeys: 0 });
    // Without a passkey there are no options to answer.
    expectError(await t.http.post('/api/v1/account/passkey-check-options').set(bearer(user.token)), 404, 'NOT_FOUND');
    const types = await activityTypes(user.token);
    expect(types).toEqual(expect.arrayContaining(['recovery_codes_regenerated', 'passkey_used', 'passkey_removed', 'mfa_challenge_failed']));
  });
  it('a passkey answers the current-factor check of a password change and of the account’s deletion', async () => {
    const user = await withPasskey();
    const checkOptions = async (token: string) => (await t.http.post('/api/v1/account/passkey-check-options').set(bearer(token)).expect(200)).body.data.options;
    const newPassword = `${user.password}-2`;
    const change = { currentPassword: user.password, newPassword, newPasswordConfirm: newPassword };
    expectError(await t.http.post('/api/v1/auth/change-password').set(bearer(user.token)).send(change), 401, 'MFA_CODE_REQUIRED');
    const forChange = await startAuthentication(user.page, await checkOptions(user.token));
    const changed = await t.http.post('/api/v1/auth/change-password').set(bearer(user.token)).send({ ...change, passkey: forChange });
    expect({ status: changed.status, error: changed.body.error }).toEqual({ status: 200, error: undefined });
    expectError(await logIn(t, user.email, user.password), 401, 'INVALID_CREDENTIALS');

    // Signed in again (the change ended every session): the passkey with the new password, the same assertion twice refused.
    const { challengeToken } = (await logIn(t, user.email, newPassword)).body.error.details;
    const signInOptions = (await t.http.post('/api/v1/auth/mfa/passkey-options').send({ challengeToken }).expect(200)).body.data.options;
    const token = (await t.http.post('/api/v1/auth/mfa/verify').send({ challengeToken, passkey: await startAuthentication(user.page, signInOptions) }).expect(200)).body.data.token as string;
    const forDeletion = await startAuthentication(user.page, await checkOptions(token));
    expectError(await t.http.delete('/api/v1/account').set(bearer(token)).send({ password: newPassword, confirmText: 'DELETE', passkey: forDeletion, code: user.recoveryCodes[0] }), 400, 'VALIDATION_ERROR');
    await t.http.delete('/api/v1/account').set(bearer(token)).send({ password: newPassword, confirmText: 'DELETE', passkey: forChange }).expect(401);
    const deleted = await t.http.delete('/api/v1/account').set(bearer(token)).send({ password: newPassword, confirmText: 'DELETE', passkey: await startAuthentication(user.page, await checkOptions(token)) });
    expect({ status: deleted.status, error: deleted.body.error }).toEqual({ status: 200, error: undefined });
    expect((await t.dataSource.query(`SELECT count(*)::int AS n FROM users WHERE id = $1`, [user.userId]))[0].n).toBe(0);
  });
});
