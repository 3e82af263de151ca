/**
 * The account pages todo-api serves (issue 29), driven in Chromium: sign up, confirm the address through the mailed
 * link, connect an app, enrol an authenticator, sign out, sign in with its code, revoke another session, disconnect the
 * app; and a forgotten password reset with the mailed code; passkeys (Chromium's virtual authenticator, CDP WebAuthn):
 * added, renamed and removed in the account centre, then signing in with one, alone and as the second factor.
 * Screenshots at desktop and 390 px. The pages are opened at http://localhost:<port>: browsers refuse an IP address as a
 * WebAuthn relying party.
 */
import { mkdirSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { generate } from 'otplib';
import type { Browser, Page } from 'playwright-core';
import { addVirtualAuthenticator, freePort, launchBrowser, SmtpTestServer } from '#libs/testing';
import { VERIFY_EMAIL_PAGE_PATH } from '#libs/identity';
import { bearer, logIn, signUp, strongPassword, uniqueEmail } from '../auth/helpers.js';
import { consentInBrowser } from '../oauth/support/consent-page.js';
import { MemoryOAuthClient } from '../oauth/support/memory-oauth-client.js';
import { ACCOUNT_MAILS, confirmEmail, mailedLink } from '../support/account-mails.js';
import { grantBetaAccess } from '../support/api-access.js';
import { SCREENSHOTS_DIR } from '../support/screenshots.js';
import { StripeTestServer } from '../support/stripe-test-server.js';
import { startWithDatabase, type TestApp } from '../support/test-apps.js';

/** The code an authenticator app shows `steps` time steps from now, away from a step's last seconds. */
async function codeAt(secret: string, steps = 0): Promise<string> {
  const into = (Date.now() / 1000) % 30;
  if (into > 27) await sleep((30 - into) * 1000 + 50);
  return generate({ secret, epoch: Math.floor(Date.now() / 1000) + steps * 30 });
}

const DESKTOP = { width: 1280, height: 900 };
/** Another device's browser, as its User-Agent says. */
const FIREFOX_ON_WINDOWS = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0';
const PHONE = { width: 390, height: 844 };

describe('account pages, in Chromium', () => {
  const smtp = new SmtpTestServer();
  const stripe = new StripeTestServer();
  let stripeEnv: Record<string, string>;
  let t: TestApp;
  let base: string;
  let browser: Browser;
  const pageErrors: string[] = [];

  /** A new page at `path`; with `authenticator`, a virtual authenticator of its own first (a platform one holding discoverable passkeys). */
  async function openPage(path: string, viewport = DESKTOP, { authenticator = false } = {}): Promise<Page> {
    const page = await browser.newPage({ viewport });
    page.on('pageerror', (error) => pageErrors.push(error.message));
    if (authenticator) await addVirtualAuthenticator(page);
    await page.goto(`${base}${path}`);
    await page.waitForSelector('body[data-ready=true]');
    return page;
  }

  /** Whether the page scrolls sideways (it must not at 390 px). */
  const overflowsSideways = (page: Page) => page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth > (globalThis as any).innerWidth);

  beforeAll(async () => {
    mkdirSync(SCREENSHOTS_DIR, { recursive: true });
    await smtp.start();
    await stripe.start();
    stripeEnv = stripe.appEnv('pages');
    const port = await freePort();
    base = `http://localhost:${port}`;
    t = await startWithDatabase('todo-api', { PUBLIC_BASE_URL: base, SMTP_URL: smtp.url, ...stripeEnv }, { port });
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await smtp.stop();
    await stripe.stop();
  });

  /** Signs a user in on the sign-in page (a page with a virtual authenticator when asked) and waits for the account centre. */
  async function signIn(email: string, password: string, viewport = DESKTOP, { authenticator = false } = {}): Promise<Page> {
    const page = await openPage('/account/sign-in', viewport, { authenticator });
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForURL(`${base}/account`);
    await page.waitForSelector('body[data-ready=true]');
    return page;
  }

  /** A confirmed account signed in on a page with a virtual authenticator, no passkey yet. */
  async function signedInWithAuthenticator(): Promise<{ user: Awaited<ReturnType<typeof signUp>>; page: Page }> {
    const user = await signUp(t);
    await confirmEmail(t, smtp, user.email);
    return { user, page: await signIn(user.email, user.password, DESKTOP, { authenticator: true }) };
  }

  /** Adds a passkey in the account centre with `password` as the fresh check: the account's first factor, so its recovery codes show once. */
  async function addPasskey(page: Page, password: string): Promise<string[]> {
    await page.locator('#passkey-password').fill(password);
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await page.locator('[data-passkey]').waitFor();
    const recoveryCodes = (await page.locator('#passkey-recovery-codes [data-secret=recovery-codes]').textContent())!.split('\n');
    expect(recoveryCodes).toHaveLength(10);
    await page.locator('#mfa-state').filter({ hasText: 'Sign-in asks for a passkey' }).waitFor();
    return recoveryCodes;
  }

  /** A confirmed account signed in on a page with a virtual authenticator, its one passkey added in the account centre. */
  async function signedInWithPasskey(): Promise<{ user: Awaited<ReturnType<typeof signUp>>; page: Page; recoveryCodes: string[] }> {
    const signedIn = await signedInWithAuthenticator();
    return { ...signedIn, recoveryCodes: await addPasskey(signedIn.page, signedIn.user.password) };
  }

  /** The address the page went to through `location.assign` to Stripe's host (the request is answered here, never sent). */
  async function leavesFor(page: Page, click: () => Promise<void>): Promise<string> {
    let resolveUrl!: (url: string) => void;
    const left = new Promise<string>((resolve) => (resolveUrl = resolve));
    await page.route(/stripe\.test/, async (route) => {
      resolveUrl(route.request().url());
      await route.fulfill({ status: 200, contentType: 'text/plain', body: 'Stripe' });
    });
    await click();
    const url = await left;
    await page.unroute(/stripe\.test/);
    return url;
  }

  it('sign up → confirm by the mailed link → enrol an authenticator → sign out → sign in with its code → revoke a session → disconnect an app', async () => {
    const email = uniqueEmail('pages');
    const password = strongPassword();

    // Sign up (the phone layout).
    const signUpPage = await openPage('/account/sign-up', PHONE);
    await signUpPage.getByLabel('E-mail', { exact: true }).fill(email);
    await signUpPage.locator('#password').fill(password);
    await signUpPage.getByLabel('Password again').fill(password);
    expect(await overflowsSideways(signUpPage)).toBe(false);
    await signUpPage.screenshot({ path: `${SCREENSHOTS_DIR}/account-sign-up-390.png`, fullPage: true });
    await signUpPage.getByRole('button', { name: 'Create account' }).click();
    await signUpPage.waitForURL(`${base}/account`);
    await signUpPage.locator('#notice').filter({ hasText: 'Account created' }).waitFor();
    await signUpPage.locator('#profile-confirmed').filter({ hasText: 'not confirmed' }).waitFor();
    await signUpPage.close();
    const [{ id: userId }] = await t.dataSource.query<Array<{ id: string }>>('SELECT id FROM users WHERE email = $1', [email]);
    await grantBetaAccess(t.dataSource, userId);

    // The verification mail's link opens the page, which confirms the address and drops the code from the address bar.
    const link = mailedLink(await smtp.waitFor(email, 0, ACCOUNT_MAILS.verifyEmail), VERIFY_EMAIL_PAGE_PATH);
    expect(link.origin).toBe(base);
    const verifyPage = await openPage(link.pathname + link.hash);
    await verifyPage.locator('#verify-state').filter({ hasText: 'Your e-mail address is confirmed.' }).waitFor();
    expect(new URL(verifyPage.url()).hash).toBe('');
    await verifyPage.close();
    const verified = await t.http.post('/api/v1/auth/login').send({ email, password }).expect(200);
    expect(verified.body.data.user.email_confirmed).toBe(1);

    // Another device's session, and an app connected through the consent page.
    const other = await logIn(t, email, password, { 'User-Agent': FIREFOX_ON_WINDOWS }).expect(200);
    const redirectUrl = 'http://127.0.0.1:9/agent/callback';
    const agent = new MemoryOAuthClient(redirectUrl, 'Pages Agent');
    const transport = new StreamableHTTPClientTransport(new URL(`${base}/api/v1/mcp`), { authProvider: agent });
    await expect(new Client({ name: 'agent', version: '1.0.0' }).connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);
    const { code } = await consentInBrowser(browser, agent.authorizationUrl!, redirectUrl, { email, password });
    await transport.finishAuth(code);

    // Sign in on the page (no second factor yet).
    const page = await openPage('/account/sign-in');
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForURL(`${base}/account`);
    await page.locator('#profile-confirmed').filter({ hasText: /^confirmed$/ }).waitFor();
    await page.locator('[data-app]').filter({ hasText: 'Pages Agent' }).waitFor();

    // Enrol an authenticator: QR code, first code, recovery codes shown once.
    await page.locator('#totp-start-password').fill(password);
    await page.getByRole('button', { name: 'Set up an authenticator app' }).click();
    await page.locator('#totp-qr[src^="data:image/png;base64,"]').waitFor();
    expect(await page.locator('#totp-qr').evaluate((img: any) => img.complete && img.naturalWidth > 0)).toBe(true);
    const secret = (await page.locator('#totp-secret').textContent())!.trim();
    await page.getByLabel('Code from the app').fill(await codeAt(secret, -1));
    await page.getByRole('button', { name: 'Turn on' }).click();
    const recoveryCodes = (await page.locator('[data-secret=recovery-codes]').textContent())!.split('\n');
    expect(recoveryCodes).toHaveLength(10);
    await page.locator('#mfa-state').filter({ hasText: 'On since' }).waitFor();
    await page.screenshot({ path: `${SCREENSHOTS_DIR}/account-centre-totp.png`, fullPage: true });

    // Sign out, then sign in with the password and the authenticator's code.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${base}/account/sign-in`);
    await page.locator('#notice').filter({ hasText: 'Signed out.' }).waitFor();
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    const factor = page.getByLabel('Authenticator code or recovery code');
    await factor.waitFor();
    await page.screenshot({ path: `${SCREENSHOTS_DIR}/account-sign-in-second-factor.png`, fullPage: true });
    await factor.fill('000000' === (await codeAt(secret)) ? '111111' : '000000');
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.locator('#factor-error').filter({ hasText: 'Wrong or already used code.' }).waitFor();
    await factor.fill(await codeAt(secret));
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.waitForURL(`${base}/account`);
    await page.locator('#who').filter({ hasText: email }).waitFor();

    // Sessions and activity name the device ("Firefox 133 on Windows"), not the raw User-Agent.
    const otherSession = page.locator('[data-session]').filter({ hasText: 'Firefox 133 on Windows' });
    await otherSession.waitFor();
    await expect(page.locator('[data-session]').filter({ hasText: 'this session' }).textContent()).resolves.toMatch(/^Chrome \d+ on Linux/);
    await page.locator('#activity-list tr[data-activity=sign_in]').filter({ hasText: 'Firefox 133 on Windows' }).first().waitFor();
    expect(await page.locator('#session-list, #activity-list').filter({ hasText: 'Mozilla/5.0' }).count()).toBe(0);

    // Revoke the other device's session (asked twice): its refresh token stops working.
    await otherSession.getByRole('button', { name: 'Revoke' }).click();
    await otherSession.getByRole('button', { name: 'Revoke this session?' }).click();
    await page.locator('#notice').filter({ hasText: 'Session revoked.' }).waitFor();
    await otherSession.waitFor({ state: 'detached' });
    await t.http.post('/api/v1/auth/refresh').send({ refreshToken: other.body.data.refreshToken }).expect(401);

    // Disconnect the app: it is gone from the list and from the API.
    const app = page.locator('[data-app]').filter({ hasText: 'Pages Agent' });
    await app.getByRole('button', { name: 'Disconnect' }).click();
    await app.getByRole('button', { name: 'Disconnect this app?' }).click();
    await page.locator('[data-empty=apps]').waitFor();
    const token = await page.evaluate(() => JSON.parse((globalThis as any).sessionStorage.getItem('account-session')).token as string);
    expect((await t.http.get('/api/v1/account/connected-apps').set(bearer(token)).expect(200)).body.data.connectedApps).toEqual([]);

    await page.screenshot({ path: `${SCREENSHOTS_DIR}/account-centre-desktop.png`, fullPage: true });
    await page.setViewportSize(PHONE);
    expect(await overflowsSideways(page)).toBe(false);
    await page.screenshot({ path: `${SCREENSHOTS_DIR}/account-centre-390.png`, fullPage: true });

    // Turn the authenticator off with a fresh check (the password and a recovery code), then change the password.
    await page.setViewportSize(DESKTOP);
    await page.locator('#check-password').fill(password);
    await page.locator('#check-code').fill(recoveryCodes[0]);
    await page.getByRole('button', { name: 'Turn off' }).click();
    await page.locator('#mfa-state').filter({ hasText: 'Off.' }).waitFor();
    expect((await t.http.get('/api/v1/account/mfa').set(bearer(token)).expect(200)).body.data.totpEnabled).toBe(false);
    const newPassword = strongPassword();
    await page.getByLabel('Current password').first().fill(password);
    await page.locator('#new-password').fill(newPassword);
    await page.locator('#new-password-confirm').fill(`${newPassword}-typo`);
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.locator('#password-error').filter({ hasText: /passwordConfirm|match/i }).waitFor();
    await page.locator('#new-password-confirm').fill(newPassword);
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.waitForURL(`${base}/account/sign-in`);
    await page.locator('#notice').filter({ hasText: 'Your password is changed' }).waitFor();
    await logIn(t, email, password).expect(401);
    await logIn(t, email, newPassword).expect(200);
    await page.close();
    expect(pageErrors).toEqual([]);
  }, 120_000);

  it('forgot password: the mailed code sets a new password, which then signs in', async () => {
    const user = await signUp(t);
    const page = await openPage('/account/forgot-password', PHONE);
    await page.locator('#forgot-email').fill(user.email);
    const before = smtp.to(user.email, ACCOUNT_MAILS.resetCode).length;
    await page.getByRole('button', { name: 'Send code' }).click();
    const resetCode = page.getByLabel('Code from the e-mail');
    await resetCode.waitFor();
    const mail = await smtp.waitFor(user.email, before, ACCOUNT_MAILS.resetCode);
    const mailedCode = /reset code is (\d{6})/.exec(mail.raw)![1];
    const newPassword = strongPassword();

    await resetCode.fill(mailedCode === '000000' ? '111111' : '000000');
    await page.locator('#reset-password').fill(newPassword);
    await page.getByLabel('New password again').fill(newPassword);
    await page.getByRole('button', { name: 'Set new password' }).click();
    await page.locator('#reset-error').filter({ hasText: /code/i }).waitFor();
    expect(await overflowsSideways(page)).toBe(false);
    await page.screenshot({ path: `${SCREENSHOTS_DIR}/account-reset-password-390.png`, fullPage: true });

    await resetCode.fill(mailedCode);
    await page.getByRole('button', { name: 'Set new password' }).click();
    await page.waitForURL(`${base}/account/sign-in`);
    await page.locator('#notice').filter({ hasText: 'Your password is set' }).waitFor();
    await page.getByLabel('E-mail').fill(user.email);
    await page.getByLabel('Password').fill(newPassword);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForURL(`${base}/account`);
    await page.locator('#who').filter({ hasText: user.email }).waitFor();
    await page.close();
    await logIn(t, user.email, user.password).expect(401);

    // The keyboard alone: the sign-in page starts in the e-mail field, Tab moves on, Enter submits.
    const keyboard = await openPage('/account/sign-in', PHONE);
    await keyboard.keyboard.type(user.email);
    await keyboard.keyboard.press('Tab');
    await keyboard.keyboard.type(newPassword);
    await keyboard.keyboard.press('Enter');
    await keyboard.waitForURL(`${base}/account`);
    await keyboard.close();
    expect(pageErrors).toEqual([]);
  }, 60_000);

  it('API keys (created and rotated: shown once; revoked), the subscription (checkout, portal, cancel, reactivate) and the activity, paged', async () => {
    const user = await signUp(t);
    // Enough activity for a second page (twenty a page): a sign-in and a revocation each.
    for (let i = 0; i < 10; i++) {
      const session = await logIn(t, user.email, user.password).expect(200);
      await t.http.post('/api/v1/auth/logout').set(bearer(session.body.data.token)).send({}).expect(200);
    }
    const page = await signIn(user.email, user.password);
    // Chromium is a new device for this account: the notice links to the sessions on the account page.
    const notice = mailedLink(await smtp.waitFor(user.email, 0, ACCOUNT_MAILS.newSignIn), '/account');
    expect(notice.href).toBe(`${base}/account#sessions`);

    // No API access yet: the keys say so, and Subscribe leaves for Stripe's checkout.
    await page.locator('[data-empty=keys]').filter({ hasText: 'API keys need API access' }).waitFor();
    // Not confirmed: the link is sent again on request.
    await page.locator('#profile-confirmed').filter({ hasText: 'not confirmed' }).waitFor();
    await smtp.waitFor(user.email, 0, ACCOUNT_MAILS.verifyEmail);
    await page.getByRole('button', { name: 'Send the link again' }).click();
    await page.locator('#notice').filter({ hasText: 'a new confirmation code has been sent' }).waitFor();
    await smtp.waitFor(user.email, 1, ACCOUNT_MAILS.verifyEmail);
    await page.locator('[data-subscription-status=none]').waitFor();
    const checkoutUrl = await leavesFor(page, () => page.getByRole('button', { name: 'Subscribe' }).click());
    const [sessionId] = [...stripe.checkoutSessions.keys()].filter((id) => stripe.checkoutSessions.get(id)!.url === checkoutUrl);
    expect(sessionId).toEqual(expect.any(String));
    expect(stripe.checkoutSessions.get(sessionId)!.success_url).toBe(`${base}/account?checkout=success#subscription`);

    // Paid at "Stripe": back on the page, active, with cancel, then keep.
    const { session } = stripe.completeCheckout(sessionId);
    const { payload, signature } = stripe.signedDelivery(stripe.event('checkout.session.completed', session), stripeEnv.STRIPE_WEBHOOK_SECRET);
    await t.http.post('/api/v1/billing/webhook').set('Content-Type', 'application/json').set('Stripe-Signature', signature).send(payload).expect(200);
    await page.goto(`${base}/account?checkout=success#subscription`);
    await page.waitForSelector('body[data-ready=true]');
    await page.locator('#notice').filter({ hasText: 'Thank you' }).waitFor();
    expect(new URL(page.url()).search).toBe('');
    await page.locator('[data-subscription-status=active]').filter({ hasText: 'Active (active)' }).waitFor();
    await page.getByRole('button', { name: 'Cancel subscription' }).click();
    await page.getByRole('button', { name: 'Cancel at the period’s end?' }).click();
    await page.locator('#subscription-state').filter({ hasText: 'then cancelled' }).waitFor();
    await page.getByRole('button', { name: 'Keep subscription' }).click();
    await page.locator('#subscription-state').filter({ hasText: 'renews' }).waitFor();
    expect(await leavesFor(page, () => page.getByRole('button', { name: 'Billing portal' }).click())).toMatch(/^https:\/\/billing\.stripe\.test\//);

    // API keys: created and shown once, rotated (the old secret stops), revoked.
    await page.goto(`${base}/account#api-keys`);
    await page.waitForSelector('body[data-ready=true]');
    await page.locator('[data-empty=keys]').filter({ hasText: 'No key yet.' }).waitFor();
    await page.getByLabel('Name', { exact: true }).fill('Pages key');
    await page.getByRole('button', { name: 'Create key' }).click();
    const secret = page.locator('[data-secret=api-key]');
    const created = (await secret.textContent())!;
    await t.http.get('/api/v1/auth/api-keys/current').set('X-API-Key', created).expect(200);
    const card = page.locator('[data-key]').filter({ hasText: 'Pages key' });
    await card.getByRole('button', { name: 'Rotate' }).click();
    await card.getByRole('button', { name: 'Rotate: the old secret stops?' }).click();
    await secret.filter({ hasNotText: created }).waitFor();
    const rotated = (await secret.textContent())!;
    await t.http.get('/api/v1/auth/api-keys/current').set('X-API-Key', created).expect(401);
    await t.http.get('/api/v1/auth/api-keys/current').set('X-API-Key', rotated).expect(200);
    await page.screenshot({ path: `${SCREENSHOTS_DIR}/account-api-keys-desktop.png`, fullPage: true });
    await card.getByRole('button', { name: 'Revoke' }).click();
    await card.getByRole('button', { name: 'Revoke this key?' }).click();
    await card.filter({ hasText: 'revoked' }).waitFor();
    await t.http.get('/api/v1/auth/api-keys/current').set('X-API-Key', rotated).expect(401);

    // An access token that no longer works: the centre's seven loads fail together and share one refresh (two
    // refreshes with one refresh token would end the session as stolen).
    const stored = () => page.evaluate(() => JSON.parse((globalThis as any).sessionStorage.getItem('account-session')) as { token: string; refreshToken: string });
    const before = await stored();
    await page.evaluate(() => {
      const storage = (globalThis as any).sessionStorage;
      storage.setItem('account-session', JSON.stringify({ ...JSON.parse(storage.getItem('account-session')), token: 'not.a.token' }));
    });

    // The activity: newest first, twenty a page, then the rest.
    await page.reload();
    await page.waitForSelector('body[data-ready=true]');
    expect(page.url()).toBe(`${base}/account#api-keys`);
    expect((await stored()).refreshToken).not.toBe(before.refreshToken);
    await t.http.get('/api/v1/auth/verify').set(bearer((await stored()).token)).expect(200);
    const rows = page.locator('#activity-list tr');
    expect(await rows.count()).toBe(20);
    await expect(rows.first().textContent()).resolves.toContain('API key revoked');
    await page.getByRole('button', { name: 'Load more' }).click();
    await page.locator('#more-activity[hidden]').waitFor({ state: 'attached' });
    const total = (await t.http.get('/api/v1/account/activity?limit=100').set(bearer(user.token)).expect(200)).body.data.activity.length;
    expect(total).toBeGreaterThan(20);
    expect(await rows.count()).toBe(total);
    await page.setViewportSize(PHONE);
    expect(await overflowsSideways(page)).toBe(false);
    await page.screenshot({ path: `${SCREENSHOTS_DIR}/account-keys-billing-activity-390.png`, fullPage: true });
    await page.close();
    expect(pageErrors).toEqual([]);
  }, 120_000);

  it('passkeys: added (named, renamed) in the account centre → sign out → sign in with the passkey alone → with the password and the passkey as second factor → removed', async () => {
    const { user, page } = await signedInWithAuthenticator();
    await page.locator('[data-empty=passkeys]').filter({ hasText: 'No passkey yet.' }).waitFor();

    // Add one: the password first, then the browser's ceremony; the account's first factor shows its recovery codes once.
    await page.getByLabel('Passkey name').fill('Test laptop');
    await page.locator('#passkey-password').fill('not-the-password');
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await page.locator('#passkey-error').filter({ hasText: /password/i }).waitFor();
    const recoveryCodes = await addPasskey(page, user.password);
    const row = page.locator('[data-passkey]');
    await row.filter({ hasText: 'Test laptop' }).waitFor();
    await expect(row.textContent()).resolves.toContain('last used never');
    const token = () => page.evaluate(() => JSON.parse((globalThis as any).sessionStorage.getItem('account-session')).token as string);
    const listed = async () => (await t.http.get('/api/v1/account/passkeys').set(bearer(await token())).expect(200)).body.data.passkeys as Array<{ name: string; lastUsedAt: string | null }>;
    expect((await listed()).map((p) => p.name)).toEqual(['Test laptop']);

    // Rename it in place.
    await row.getByRole('button', { name: 'Rename' }).click();
    await row.getByLabel('New name').fill('Desk laptop');
    await row.getByRole('button', { name: 'Save name' }).click();
    await row.filter({ hasText: 'Desk laptop' }).waitFor();
    expect((await listed()).map((p) => p.name)).toEqual(['Desk laptop']);

    const section = page.locator('#passkeys');
    await section.screenshot({ path: `${SCREENSHOTS_DIR}/account-passkeys-1280.png` });
    await page.setViewportSize(PHONE);
    expect(await overflowsSideways(page)).toBe(false);
    await section.screenshot({ path: `${SCREENSHOTS_DIR}/account-passkeys-390.png` });
    await page.setViewportSize(DESKTOP);

    // Sign out, then sign in with the passkey alone: no e-mail, no password.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${base}/account/sign-in`);
    await page.waitForSelector('body[data-ready=true]');
    await page.screenshot({ path: `${SCREENSHOTS_DIR}/account-sign-in-passkey.png`, fullPage: true });
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await page.waitForURL(`${base}/account`);
    await page.locator('#who').filter({ hasText: user.email }).waitFor();
    await row.filter({ hasNotText: 'last used never' }).waitFor();
    expect((await listed())[0].lastUsedAt).toEqual(expect.any(String));

    // Sign out, then the password, and the passkey as the second factor.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${base}/account/sign-in`);
    await page.getByLabel('E-mail').fill(user.email);
    await page.getByLabel('Password').fill(user.password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('button', { name: 'Use a passkey' }).waitFor();
    await expect(page.getByLabel('Authenticator code or recovery code').isVisible()).resolves.toBe(true);
    await page.screenshot({ path: `${SCREENSHOTS_DIR}/account-sign-in-passkey-factor.png`, fullPage: true });
    await page.getByRole('button', { name: 'Use a passkey' }).click();
    await page.waitForURL(`${base}/account`);
    await page.locator('#who').filter({ hasText: user.email }).waitFor();
    const types = (await t.http.get('/api/v1/account/activity?limit=100').set(bearer(await token())).expect(200)).body.data.activity.map((e: { type: string }) => e.type);
    expect(types.filter((type: string) => type === 'passkey_used')).toHaveLength(2);

    // Remove it: the password and a recovery code.
    await row.getByRole('button', { name: 'Remove' }).click();
    await row.getByLabel('Current password').fill(user.password);
    await row.getByLabel('Authenticator code or recovery code').fill(recoveryCodes[0]);
    await row.getByRole('button', { name: 'Remove passkey' }).click();
    await page.locator('[data-empty=passkeys]').waitFor();
    await page.locator('#mfa-state').filter({ hasText: 'Sign-in asks for your password only.' }).waitFor();
    expect(await listed()).toEqual([]);
    await logIn(t, user.email, user.password).expect(200);
    await page.close();
    expect(pageErrors).toEqual([]);
  }, 90_000);

  it('e-mail change: the link mailed to the new address confirms it in the browser, the code out of the address bar', async () => {
    const user = await signUp(t);
    await confirmEmail(t, smtp, user.email);
    const newEmail = uniqueEmail('moved');
    await t.http.post('/api/v1/account/email').set(bearer(user.token)).send({ email: newEmail, currentPassword: user.password }).expect(200);
    const link = mailedLink(await smtp.waitFor(newEmail, 0, ACCOUNT_MAILS.confirmNewEmail), VERIFY_EMAIL_PAGE_PATH);
    expect(link.origin).toBe(base);
    expect(link.search).toBe('');
    const page = await openPage(link.pathname + link.hash, PHONE);
    await page.locator('#verify-state').filter({ hasText: 'Your new e-mail address is confirmed' }).waitFor();
    expect(new URL(page.url()).hash).toBe('');
    expect(await overflowsSideways(page)).toBe(false);
    await page.screenshot({ path: `${SCREENSHOTS_DIR}/account-email-change-confirmed-390.png`, fullPage: true });
    await logIn(t, newEmail, user.password).expect(200);
    await logIn(t, user.email, user.password).expect(401);
    await smtp.waitFor(user.email, 0, ACCOUNT_MAILS.emailChanged);

    // The same link again: used up, and the page says so and offers the code field.
    await page.close();
    const again = await openPage(link.pathname + link.hash, PHONE);
    await again.locator('#verify-error').filter({ hasText: 'Ask for the change again' }).waitFor();
    await again.locator('#verify-code').waitFor();
    await again.close();
    expect(pageErrors).toEqual([]);
  }, 60_000);
  it('a passkey-only account replaces its recovery codes in the account centre with the passkey as the fresh check', async () => {
    const { user, page } = await signedInWithAuthenticator();
    await page.locator('[data-empty=passkeys]').waitFor();
    await expect(page.locator('#passkey-codes-form').isVisible()).resolves.toBe(false);
    const first = await addPasskey(page, user.password);

    // No authenticator app: the passkey answers the fresh check for new codes (a wrong password first).
    const form = page.locator('#passkey-codes-form');
    await form.waitFor();
    await form.getByLabel('Current password').fill('not-the-password');
    await form.getByRole('button', { name: 'New recovery codes' }).click();
    await page.locator('#passkey-codes-error').filter({ hasText: /wrong/i }).waitFor();
    await form.getByLabel('Current password').fill(user.password);
    await form.getByRole('button', { name: 'New recovery codes' }).click();
    const codes = page.locator('#passkey-recovery-codes [data-secret=recovery-codes]');
    await codes.filter({ hasNotText: first[0] }).waitFor();
    const renewed = (await codes.textContent())!.split('\n');
    expect(renewed).toHaveLength(10);
    expect(renewed.filter((code) => first.includes(code))).toEqual([]);
    await page.locator('#passkeys').screenshot({ path: `${SCREENSHOTS_DIR}/account-passkey-recovery-codes-1280.png` });
    await page.setViewportSize(PHONE);
    expect(await overflowsSideways(page)).toBe(false);
    await page.locator('#passkeys').screenshot({ path: `${SCREENSHOTS_DIR}/account-passkey-recovery-codes-390.png` });

    // The new codes answer the second-factor step; the old ones no longer do.
    const challenge = async () => (await logIn(t, user.email, user.password).expect(401)).body.error.details.challengeToken as string;
    await t.http.post('/api/v1/auth/mfa/verify').send({ challengeToken: await challenge(), recoveryCode: first[1] }).expect(401);
    await t.http.post('/api/v1/auth/mfa/verify').send({ challengeToken: await challenge(), recoveryCode: renewed[0] }).expect(200);
    await page.close();
    expect(pageErrors).toEqual([]);
  }, 60_000);
  const pageToken = (page: Page) => page.evaluate(() => JSON.parse((globalThis as any).sessionStorage.getItem('account-session')).token as string);
  /** The activity entries of `context` that a passkey answered (the fresh checks it passed). */
  async function passkeyChecks(token: string, context: string): Promise<number> {
    const { activity } = (await t.http.get('/api/v1/account/activity?limit=100').set(bearer(token)).expect(200)).body.data;
    return activity.filter((e: { type: string; details: { context?: string } | null }) => e.type === 'passkey_used' && e.details?.context === context).length;
  }

  it('a passkey is removed with the password and a passkey as the fresh check, no code typed', async () => {
    const { user, page } = await signedInWithPasskey();
    const token = await pageToken(page);
    const row = page.locator('[data-passkey]');
    await row.getByRole('button', { name: 'Remove' }).click();
    await row.getByLabel('Current password').fill(user.password);
    await page.setViewportSize(PHONE);
    expect(await overflowsSideways(page)).toBe(false);
    await row.screenshot({ path: `${SCREENSHOTS_DIR}/account-passkey-remove-390.png` });
    await row.getByRole('button', { name: 'Use a passkey' }).click();
    await page.locator('[data-empty=passkeys]').waitFor();
    await page.locator('#mfa-state').filter({ hasText: 'Sign-in asks for your password only.' }).waitFor();
    expect((await t.http.get('/api/v1/account/passkeys').set(bearer(token)).expect(200)).body.data.passkeys).toEqual([]);
    expect(await passkeyChecks(token, 'passkey_removal')).toBe(1);
    await logIn(t, user.email, user.password).expect(200);
    await page.close();
    expect(pageErrors).toEqual([]);
  }, 60_000);

  it('the password is changed with a passkey as the second factor, no code typed: the new one signs in, the old one does not', async () => {
    const { user, page, recoveryCodes } = await signedInWithPasskey();
    const token = await pageToken(page);
    const form = page.locator('#password-form');
    const newPassword = strongPassword();
    await form.getByLabel('Current password').fill(user.password);
    await page.locator('#new-password').fill(newPassword);
    await page.locator('#new-password-confirm').fill(newPassword);
    await form.screenshot({ path: `${SCREENSHOTS_DIR}/account-password-passkey-1280.png` });
    await form.getByRole('button', { name: 'Use a passkey' }).click();
    await page.waitForURL(`${base}/account/sign-in`);
    await page.locator('#notice').filter({ hasText: 'Your password is changed' }).waitFor();
    expect((await logIn(t, user.email, user.password).expect(401)).body.error.code).toBe('INVALID_CREDENTIALS');
    const challenge = await logIn(t, user.email, newPassword).expect(401);
    expect(challenge.body.error.code).toBe('MFA_REQUIRED');
    const signedIn = await t.http.post('/api/v1/auth/mfa/verify').send({ challengeToken: challenge.body.error.details.challengeToken, recoveryCode: recoveryCodes[0] }).expect(200);
    expect(await passkeyChecks(signedIn.body.data.token, 'password_change')).toBe(1);
    await t.http.get('/api/v1/auth/verify').set(bearer(token)).expect(401);
    await page.close();
    expect(pageErrors).toEqual([]);
  }, 60_000);

  it('the account is deleted with a passkey as the second factor, no code typed (a wrong typed code first is refused): sign-in is refused after', async () => {
    const { user, page } = await signedInWithPasskey();
    const form = page.locator('#delete-account-form');
    await form.getByLabel('Your password').fill(user.password);
    await form.getByLabel('Type DELETE to confirm').fill('DELETE');
    await form.getByLabel('Authenticator code or recovery code').fill('not-a-recovery-code');
    await form.getByRole('button', { name: 'Delete account' }).click();
    await page.locator('#delete-account-error').filter({ hasText: /wrong/i }).waitFor();
    await logIn(t, user.email, user.password).expect(401);
    expect(await t.dataSource.query('SELECT id FROM users WHERE id = $1', [user.userId])).toHaveLength(1);

    await form.getByLabel('Authenticator code or recovery code').fill('');
    await page.setViewportSize(PHONE);
    expect(await overflowsSideways(page)).toBe(false);
    await form.screenshot({ path: `${SCREENSHOTS_DIR}/account-delete-passkey-390.png` });
    await form.getByRole('button', { name: 'Use a passkey' }).click();
    await page.waitForURL(`${base}/account/sign-in`);
    await page.locator('#notice').filter({ hasText: 'Your account is deleted' }).waitFor();
    expect((await logIn(t, user.email, user.password).expect(401)).body.error.code).toBe('INVALID_CREDENTIALS');
    expect(await t.dataSource.query('SELECT id FROM users WHERE id = $1', [user.userId])).toEqual([]);
    await page.close();
    expect(pageErrors).toEqual([]);
  }, 60_000);

  it('e-mail change from the account centre: the form (pending until the new address confirms it), then the notice’s revert link puts the old address back', async () => {
    const user = await signUp(t);
    await confirmEmail(t, smtp, user.email);
    const page = await signIn(user.email, user.password);
    const form = page.locator('#email-change-form');
    const newEmail = uniqueEmail('centre-moved');
    await form.getByLabel('New e-mail address').fill(newEmail);
    await form.getByLabel('Your password').fill('not-the-password');
    await form.getByRole('button', { name: 'Change e-mail address' }).click();
    await page.locator('#email-change-error').filter({ hasText: /password/i }).waitFor();
    await form.getByLabel('Your password').fill(user.password);
    await form.getByRole('button', { name: 'Change e-mail address' }).click();
    const pending = page.locator('#email-change-pending');
    await pending.filter({ hasText: newEmail }).waitFor();
    await expect(pending.textContent()).resolves.toContain(`stays ${user.email}`);
    await page.locator('#profile').screenshot({ path: `${SCREENSHOTS_DIR}/account-email-change-pending-1280.png` });
    await page.setViewportSize(PHONE);
    expect(await overflowsSideways(page)).toBe(false);
    await page.locator('#profile').screenshot({ path: `${SCREENSHOTS_DIR}/account-email-change-pending-390.png` });
    // A reload keeps the pending state (this tab asked for it); the address has not changed yet.
    await page.reload();
    await page.waitForSelector('body[data-ready=true]');
    await pending.filter({ hasText: newEmail }).waitFor();
    await expect(page.locator('#profile-email').textContent()).resolves.toBe(user.email);

    // The link mailed to the new address confirms it; the centre then shows it, with no pending line.
    const confirmLink = mailedLink(await smtp.waitFor(newEmail, 0, ACCOUNT_MAILS.confirmNewEmail), VERIFY_EMAIL_PAGE_PATH);
    const confirmPage = await openPage(confirmLink.pathname + confirmLink.hash);
    await confirmPage.locator('#verify-state').filter({ hasText: 'Your new e-mail address is confirmed' }).waitFor();
    await confirmPage.close();
    await page.reload();
    await page.waitForSelector('body[data-ready=true]');
    await page.locator('#profile-email').filter({ hasText: newEmail }).waitFor();
    await expect(pending.isVisible()).resolves.toBe(false);

    // The notice to the old address carries a link (the code in the fragment) that puts it back and signs every session out.
    const revertLink = mailedLink(await smtp.waitFor(user.email, 0, ACCOUNT_MAILS.emailChanged), VERIFY_EMAIL_PAGE_PATH);
    expect(revertLink.origin).toBe(base);
    expect(revertLink.search).toBe('');
    expect(revertLink.hash).toMatch(/^#revert=[A-Za-z0-9_-]{43}$/);
    const revertPage = await openPage(revertLink.pathname + revertLink.hash, PHONE);
    await revertPage.locator('#verify-state').filter({ hasText: 'Your e-mail address is back' }).waitFor();
    expect(new URL(revertPage.url()).hash).toBe('');
    expect(await overflowsSideways(revertPage)).toBe(false);
    await revertPage.screenshot({ path: `${SCREENSHOTS_DIR}/account-email-reverted-390.png`, fullPage: true });
    await logIn(t, user.email, user.password).expect(200);
    await logIn(t, newEmail, user.password).expect(401);
    await t.http.get('/api/v1/auth/verify').set(bearer(user.token)).expect(401);
    // The same link again: used up.
    await revertPage.close();
    const again = await openPage(revertLink.pathname + revertLink.hash, PHONE);
    await again.locator('#verify-state').filter({ hasText: 'works once' }).waitFor();
    await again.close();
    await page.close();
    expect(pageErrors).toEqual([]);
  }, 60_000);
});
