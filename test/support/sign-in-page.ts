import type { Page } from 'playwright-core';

/**
 * Opens `url` (the dashboard, or the account centre's sign-in page: both forms label their fields E-mail and Password)
 * once the page is ready, fills the form and presses Sign in. The caller waits for what its page shows next.
 */
export async function submitSignIn(page: Page, url: string, credentials: { email: string; password: string }): Promise<void> {
  await page.goto(url);
  await page.waitForSelector('body[data-ready=true]');
  await page.getByLabel('E-mail').fill(credentials.email);
  await page.getByLabel('Password').fill(credentials.password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
}

/** Signs in on the dashboard at `baseUrl` and waits until it shows who is signed in. */
export async function signInToDashboard(page: Page, baseUrl: string, user: { email: string; password: string }, path = '/dashboard'): Promise<void> {
  await submitSignIn(page, `${baseUrl}${path}`, user);
  await page.locator('#who').filter({ hasText: user.email }).waitFor();
}
