import { mkdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import { insertUser, launchBrowser, watchPage, type TestUser } from '#libs/testing';
import { SCREENSHOTS_DIR } from '../support/screenshots.js';
import { startDashboardApps, type TestApp } from '../support/test-apps.js';
import { bearer } from './feedback-fixtures.js';
import { signInToDashboard } from '../support/sign-in-page.js';

/**
 * Triage in the dashboard, in Chromium at desktop width and at 390 px: newest first, search,
 * filters kept in the URL (a shared link shows the same list), bulk status, keyboard triage, the
 * CSV download of the current filter, the reporter's context, new counts on the site cards, and
 * the empty state's snippet and test feedback.
 */
describe('dashboard triage in Chromium', () => {
  let apps: Awaited<ReturnType<typeof startDashboardApps>>;
  let t: TestApp;
  let browser: Browser;
  let user: TestUser;
  let jwt: string;
  const sites: Record<string, { id: string; siteKey: string }> = {};
  const context = { browser: 'Firefox 133', os: 'Android 15', viewport: '390x844', language: 'de-DE', referrer: 'https://search.example/results' };

  async function createSite(name: string) {
    const site = (await t.http.post('/api/v1/sites').set(bearer(jwt)).send({ name }).expect(201)).body.data.site;
    sites[name] = { id: site.id, siteKey: site.siteKey };
    return sites[name];
  }

  /** Four items, oldest first; the bug carries the reporter's context, one message is a spreadsheet formula. */
  async function seed(siteKey: string) {
    const items = [
      { type: 'bug', message: 'Coupon code rejected at checkout', pageUrl: 'https://acme.example/checkout', reporterContext: context },
      { type: 'feedback', message: 'Love the new colours', pageUrl: 'https://acme.example/' },
      { type: 'feature_request', message: 'Please add a size guide', pageUrl: 'https://acme.example/shirts' },
      { type: 'feedback', message: '=HYPERLINK("http://evil.example","prize")', pageUrl: 'https://acme.example/' },
    ];
    for (const item of items) await t.http.post('/api/v1/widget/feedback').send({ siteKey, ...item }).expect(201);
  }

  beforeAll(async () => {
    mkdirSync(SCREENSHOTS_DIR, { recursive: true });
    apps = await startDashboardApps();
    t = apps.feedback;
    user = await insertUser(t.dataSource);
    jwt = await t.accessTokenFor(user.id);
    await createSite('Empty shop');
    await seed((await createSite('Acme')).siteKey);
    await seed((await createSite('Beta')).siteKey);
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await apps?.close();
  });


  const signIn = (page: Page, path = '/dashboard') => signInToDashboard(page, t.baseUrl, user, path);

  const messages = (page: Page) => page.locator('tr[data-row] td.message > div:first-child').allTextContents();
  const rowsAre = (page: Page, count: number) => page.waitForFunction((n) => (globalThis as any).document.querySelectorAll('tr[data-row]').length === n, count);
  const newBadge = (page: Page, name: string) => page.locator(`[data-new-count="${sites[name].id}"]`);

  async function downloadCsv(page: Page): Promise<string> {
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download CSV' }).click()]);
    return readFileSync((await download.path())!, 'utf8');
  }

  it('at desktop width: newest first, search and filters in the URL, reporter context, keyboard and bulk triage, CSV of the filter', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
    const seen = watchPage(page);
    await signIn(page);
    await expect(newBadge(page, 'Acme').textContent()).resolves.toBe('4 new');
    await expect(newBadge(page, 'Empty shop').textContent()).resolves.toBe('0 new');

    await page.getByRole('button', { name: 'Open Acme' }).click();
    await rowsAre(page, 4);
    expect(await messages(page)).toEqual(['=HYPERLINK("http://evil.example","prize")', 'Please add a size guide', 'Love the new colours', 'Coupon code rejected at checkout']);
    // The widget's words: "Idea", not "Feature request".
    await expect(page.locator('tr[data-row]').nth(1).locator('.badge').textContent()).resolves.toBe('Idea');
    await expect(page.locator('[data-context]').textContent()).resolves.toBe('Firefox 133 · Android 15 · 390x844 · de-DE · from https://search.example/results');

    // Search finds the page URL too; the URL of the dashboard keeps the filter.
    await page.getByLabel('Search').fill('checkout');
    await rowsAre(page, 1);
    expect(new URL(page.url()).searchParams.get('q')).toBe('checkout');
    await page.getByLabel('Search').fill('');
    await rowsAre(page, 4);
    await page.getByLabel('Type', { exact: true }).selectOption('feedback');
    await page.getByLabel('Order').selectOption('oldest');
    await rowsAre(page, 2);
    expect(await messages(page)).toEqual(['Love the new colours', '=HYPERLINK("http://evil.example","prize")']);
    const shared = new URL(page.url());
    expect(Object.fromEntries(shared.searchParams)).toEqual({ site: sites.Acme.id, type: 'feedback', order: 'oldest' });

    // The CSV holds exactly the filtered list, the formula neutralised.
    const csv = await downloadCsv(page);
    const lines = csv.trimEnd().split('\r\n');
    expect(lines[0]).toBe('"id","createdAt","type","status","rating","message","pageUrl","browser","os","viewport","language","referrer","reporterId","reporterEmail","reporterName"');
    expect(lines).toHaveLength(3);
    expect(lines[1]).toContain('"Love the new colours"');
    expect(lines[2]).toContain(`"'=HYPERLINK(""http://evil.example"",""prize"")"`);

    // A shared link, opened in another tab and signed in, shows the same list.
    const other = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const otherSeen = watchPage(other);
    await signIn(other, `${shared.pathname}${shared.search}`);
    await rowsAre(other, 2);
    expect(await messages(other)).toEqual(['Love the new colours', '=HYPERLINK("http://evil.example","prize")']);
    expect(await other.getByLabel('Order').inputValue()).toBe('oldest');
    expect(otherSeen).toEqual({ errors: [], failed: [] });
    await other.close();

    // Keyboard: j moves to the first row, t marks it triaged; j, x selects the next one.
    await page.getByLabel('Type', { exact: true }).selectOption('');
    await page.getByLabel('Order').selectOption('newest');
    await rowsAre(page, 4);
    await page.locator('#site-title').focus();
    await page.keyboard.press('j');
    await page.keyboard.press('t');
    await page.getByText('Feedback marked triaged.').waitFor();
    expect(await page.locator('tr[data-row]').nth(0).locator('select.triage').inputValue()).toBe('triaged');
    await page.keyboard.press('j');
    await page.keyboard.press('x');
    await page.getByText('1 selected').waitFor();
    await page.screenshot({ path: `${SCREENSHOTS_DIR}/dashboard-triage-desktop.png`, fullPage: true });

    // Bulk: select all shown, mark resolved; the site's badge counts what is left new.
    await page.getByLabel('Select all shown').check();
    await page.getByText('4 selected').waitFor();
    await page.getByRole('button', { name: 'Mark resolved' }).click();
    await page.getByText('4 items marked resolved.').waitFor();
    // The badges follow the change (their count is asked for after it).
    await newBadge(page, 'Acme').filter({ hasText: /^0 new$/ }).waitFor();
    const stored = (await t.http.get(`/api/v1/sites/${sites.Acme.id}/feedback/search`).query({ status: 'resolved' }).set(bearer(jwt)).expect(200)).body.data;
    expect(stored.total).toBe(4);
    expect(seen).toEqual({ errors: [], failed: [] });
    await page.close();
  }, 90_000);

  it('shows the snippet and sends a test feedback on an empty site', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const seen = watchPage(page);
    await signIn(page);
    await page.getByRole('button', { name: 'Open Empty shop' }).click();
    const empty = page.locator('[data-empty=feedback]');
    await empty.getByText('No feedback yet.').waitFor();
    await expect(empty.locator('code.snippet').textContent()).resolves.toBe(`<script src="${t.baseUrl}/widget.js" data-site-key="${sites['Empty shop'].siteKey}" async></script>`);
    expect(await page.locator('#bulk-bar').isVisible()).toBe(false);
    await page.screenshot({ path: `${SCREENSHOTS_DIR}/dashboard-empty-state.png`, fullPage: true });
    await empty.getByRole('button', { name: 'Send a test feedback' }).click();
    await page.getByText('Test feedback sent from the dashboard').waitFor();
    await page.locator('#bulk-bar').waitFor();
    await newBadge(page, 'Empty shop').filter({ hasText: /^1 new$/ }).waitFor();
    expect(seen).toEqual({ errors: [], failed: [] });
    await page.close();
  }, 60_000);

  it('at 390 px: one primary action per site card, Delete behind the menu, search, bulk status and CSV', async () => {
    const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2, acceptDownloads: true });
    const page = await phone.newPage();
    const seen = watchPage(page);
    await signIn(page);
    const card = page.locator(`[data-site="${sites.Beta.id}"]`);
    await card.getByRole('button', { name: 'Open Beta' }).waitFor();
    // Visible buttons of the closed card: the primary one only (the snippet's copy button is inside its own closed details).
    expect(await card.locator('button:visible').allTextContents()).toEqual(['Open Beta']);
    expect(await card.getByRole('button', { name: 'Delete' }).isVisible()).toBe(false);
    await page.screenshot({ path: `${SCREENSHOTS_DIR}/dashboard-triage-phone-sites.png`, fullPage: true });
    await card.locator('[data-menu]').tap();
    await card.getByRole('button', { name: 'Delete' }).waitFor();
    await card.screenshot({ path: `${SCREENSHOTS_DIR}/dashboard-triage-phone-menu.png` });
    await card.locator('[data-menu]').tap();

    await card.getByRole('button', { name: 'Open Beta' }).tap();
    await rowsAre(page, 4);
    await page.getByLabel('Search').fill('colours');
    await rowsAre(page, 1);
    await page.getByLabel('Search').fill('');
    await rowsAre(page, 4);
    await page.getByLabel('Type', { exact: true }).selectOption('feedback');
    await rowsAre(page, 2);
    await page.getByLabel('Select all shown').check();
    await page.getByRole('button', { name: 'Mark triaged' }).tap();
    await page.getByText('2 items marked triaged.').waitFor();
    const csv = await downloadCsv(page);
    expect(csv.trimEnd().split('\r\n').slice(1).map((line) => /^"[^"]*","[^"]*","[^"]*","([^"]*)"/.exec(line)![1])).toEqual(['triaged', 'triaged']);
    const overflow = await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth - (globalThis as any).innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await page.screenshot({ path: `${SCREENSHOTS_DIR}/dashboard-triage-phone.png`, fullPage: true });
    await newBadge(page, 'Beta').filter({ hasText: /^2 new$/ }).waitFor();
    expect(seen).toEqual({ errors: [], failed: [] });
    await phone.close();
  }, 90_000);
});
