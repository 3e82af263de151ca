import { mkdirSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { generate } from 'otplib';
import type { Browser } from 'playwright-core';
import { launchBrowser, SmtpTestServer } from '#libs/testing';
import { bearer, signUp, type SignedUp } from '../auth/helpers.js';
import { confirmEmail } from '../support/account-mails.js';
import { SCREENSHOTS_DIR } from '../support/screenshots.js';
import { startDashboardApps } from '../support/test-apps.js';
import { submitSignIn } from '../support/sign-in-page.js';

/** The code an authenticator app shows `steps` time steps from now, away from a step's last seconds. */
async function codeAt(secret: string, steps = 0): Promise<string> {
  const into = (Date.now() / 1000) % 30;
  if (into > 27) await sleep((30 - into) * 1000 + 50);
  return generate({ secret, epoch: Math.floor(Date.now() / 1000) + steps * 30 });
}

/**
 * The owner dashboard's sign-in for an account with a second factor (issue 29): the password step is answered
 * MFA_REQUIRED, the page then asks for the authenticator's code (or a recovery code) and signs in with mfa/verify.
 */
describe('owner dashboard sign-in with a second factor, in Chromium', () => {
  const smtp = new SmtpTestServer();
  let apps: Awaited<ReturnType<typeof startDashboardApps>>;
  let browser: Browser;
  let user: SignedUp & { secret: string; recoveryCodes: string[] };

  beforeAll(async () => {
    mkdirSync(SCREENSHOTS_DIR, { recursive: true });
    await smtp.start();
    apps = await startDashboardApps({}, { SMTP_URL: smtp.url });
    browser = await launchBrowser();
    const signedUp = await signUp(apps.todo);
    await confirmEmail(apps.todo, smtp, signedUp.email);
    const secret = (await apps.todo.http.post('/api/v1/account/mfa/totp').set(bearer(signedUp.token)).send({ password: signedUp.password }).expect(201)).body.data.secret as string;
    const confirmed = await apps.todo.http.post('/api/v1/account/mfa/totp/confirm').set(bearer(signedUp.token)).send({ code: await codeAt(secret, -1) }).expect(200);
    user = { ...signedUp, secret, recoveryCodes: confirmed.body.data.recoveryCodes };
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await apps?.close();
    await smtp.stop();
  });

  it('asks for the code after the password, says so when it is wrong, and signs in with the right one', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await submitSignIn(page, `${apps.feedback.baseUrl}/dashboard`, user);
    const code = page.getByLabel('Authenticator code or recovery code');
    await code.waitFor();
    expect(await page.locator('#sign-in-form').isHidden()).toBe(true);
    await page.screenshot({ path: `${SCREENSHOTS_DIR}/dashboard-second-factor.png`, fullPage: true });

    const right = await codeAt(user.secret);
    await code.fill(right === '000000' ? '111111' : '000000');
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.locator('#factor-error').filter({ hasText: 'Wrong or already used code.' }).waitFor();

    await code.fill(right);
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.locator('#who').filter({ hasText: user.email }).waitFor();
    expect(await page.locator('#factor-form').isHidden()).toBe(true);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('signs in with a recovery code', async () => {
    const page = await browser.newPage();
    await submitSignIn(page, `${apps.feedback.baseUrl}/dashboard`, user);
    await page.getByLabel('Authenticator code or recovery code').fill(user.recoveryCodes[0]);
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.locator('#who').filter({ hasText: user.email }).waitFor();
    await page.close();
  });
});
