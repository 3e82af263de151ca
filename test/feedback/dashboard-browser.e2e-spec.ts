import { mkdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { insertUser, launchBrowser, watchPage, type TestUser } from '#libs/testing';
import { SCREENSHOTS_DIR } from '../support/screenshots.js';
import { startDashboardApps, type TestApp } from '../support/test-apps.js';
import { bearer } from './feedback-fixtures.js';
import { signInToDashboard } from '../support/sign-in-page.js';

/**
 * The owner dashboard in Chromium, everything an owner does without the API: create, rename and
 * delete a site, copy the widget snippet, rotate read/write/portfolio tokens (shown once, copied),
 * filter and triage feedback, write a question batch with a server-sanitised preview, send it,
 * have it answered on the share page, and read the answers. Then the same page at phone width.
 */
describe('owner dashboard in Chromium', () => {
  let apps: Awaited<ReturnType<typeof startDashboardApps>>;
  let t: TestApp;
  let browser: Browser;
  let user: TestUser;

  beforeAll(async () => {
    mkdirSync(SCREENSHOTS_DIR, { recursive: true });
    apps = await startDashboardApps();
    t = apps.feedback;
    user = await insertUser(t.dataSource);
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await apps?.close();
  });


  const signIn = (page: Page) => signInToDashboard(page, t.baseUrl, user);

  const clipboard = (page: Page) => page.evaluate(() => (globalThis as any).navigator.clipboard.readText() as Promise<string>);

  /** Each triage dropdown shows its longest option whole (the column once cut it to "triag"). */
  const triageFits = (page: Page) =>
    page.evaluate(() => {
      const document = (globalThis as any).document;
      return Array.from(document.querySelectorAll('select.triage')).map((select: any) => {
        const probe = document.createElement('span');
        probe.style.font = (globalThis as any).getComputedStyle(select).font;
        probe.style.position = 'absolute';
        probe.textContent = 'Resolved';
        document.body.appendChild(probe);
        const textWidth = probe.getBoundingClientRect().width;
        probe.remove();
        const box = select.getBoundingClientRect();
        return { fits: select.clientWidth >= textWidth + 24, inView: box.left >= 0 && box.right <= (globalThis as any).innerWidth };
      });
    });

  let context: BrowserContext;
  let siteId = '';

  it('creates and renames a site, copies the snippet and rotates every token, shown once with a copy button', async () => {
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.baseUrl });
    const page = await context.newPage();
    const seen = watchPage(page);
    await signIn(page);
    await page.locator('[data-empty=sites]').waitFor();

    // No 404 for the icon, asked for by the page and by browsers on their own.
    const icon = await t.http.get('/favicon.ico').buffer(true).expect(200);
    expect(icon.headers['content-type']).toBe('image/x-icon');
    expect((icon.body as Buffer).subarray(0, 4)).toEqual(Buffer.from([0, 0, 1, 0]));
    expect(await page.evaluate(() => (globalThis as any).document.querySelector('link[rel=icon]').href)).toBe(`${t.baseUrl}/favicon.svg`);

    await page.getByRole('button', { name: 'New site' }).click();
    await page.getByLabel('Site name').fill('Acme shop');
    await page.getByRole('button', { name: 'Create site' }).click();
    const card = page.locator('[data-site]');
    await card.getByRole('heading', { name: 'Acme shop' }).waitFor();
    siteId = (await card.getAttribute('data-site'))!;
    const created = (await t.http.get(`/api/v1/sites/${siteId}`).set(bearer(await t.accessTokenFor(user.id))).expect(200)).body.data.site;
    expect(created).toMatchObject({ name: 'Acme shop', slug: 'acme-shop' });

    // The snippet of the new card is open, with its copy button.
    await card.locator('[data-copy=snippet]').click();
    expect(await clipboard(page)).toBe(`<script src="${t.baseUrl}/widget.js" data-site-key="${created.siteKey}" async></script>`);

    await card.locator('[data-menu]').click();
    await card.getByRole('button', { name: 'Rename' }).click();
    await page.getByLabel('New name of Acme shop').fill('Acme store');
    await page.getByRole('button', { name: 'Save name' }).click();
    await page.locator(`[data-site="${siteId}"]`).getByRole('heading', { name: 'Acme store' }).waitFor();
    await page.getByText('Renamed to “Acme store”.').waitFor();

    const site = page.locator(`[data-site="${siteId}"]`);
    // A new site has no tokens: the menu offers to create them (no confirmation: nothing is replaced).
    await site.locator('[data-menu]').click();
    expect(await site.getByRole('button', { name: /Rotate/ }).count()).toBe(0);
    await site.getByRole('button', { name: 'Create write token' }).click();
    const first = (await site.locator('[data-secret=write]').textContent())!;
    expect(first).toMatch(/^wk_[A-Za-z0-9_-]{43}$/);
    // Once it exists, replacing it asks once more.
    await site.getByRole('button', { name: 'Rotate write token' }).click();
    await site.getByRole('button', { name: 'Confirm: replace the write token' }).click();
    await site.locator('[data-secret=write]').filter({ hasNotText: first }).waitFor();
    const write = (await site.locator('[data-secret=write]').textContent())!;
    expect(write).toMatch(/^wk_[A-Za-z0-9_-]{43}$/);
    await site.locator('[data-copy=write]').click();
    expect(await clipboard(page)).toBe(write);
    await t.http.get('/api/v1/export/feedback').set(bearer(write)).expect(200);

    await site.getByRole('button', { name: 'Create read token' }).click();
    const read = (await site.locator('[data-secret=read]').textContent())!;
    expect(read).toMatch(/^sk_[A-Za-z0-9_-]{43}$/);
    await t.http.get('/api/v1/export/feedback').set(bearer(read)).expect(200);

    await page.getByText('No portfolio token yet.').waitFor();
    await page.getByRole('button', { name: 'Create portfolio token' }).click();
    await page.getByText(/^A portfolio token exists, issued /).waitFor();
    const portfolio = (await page.locator('[data-secret=portfolio]').textContent())!;
    expect(portfolio).toMatch(/^ok_[A-Za-z0-9_-]{43}$/);
    await page.locator('[data-copy=portfolio]').click();
    expect(await clipboard(page)).toBe(portfolio);
    await t.http.get('/api/v1/export/portfolio/feedback').set(bearer(portfolio)).expect(200);
    // Shown once: a reload shows the site, not the secret.
    await page.reload();
    await page.locator(`[data-site="${siteId}"]`).waitFor();
    expect(await page.locator('[data-secret]').count()).toBe(0);
    expect(seen).toEqual({ errors: [], failed: [] });
    await page.close();
  }, 60_000);

  it('filters and triages feedback, writes a batch with a sanitised preview, sends it, and shows the answers given on the share page', async () => {
    const siteKey = (await t.http.get(`/api/v1/sites/${siteId}`).set(bearer(await t.accessTokenFor(user.id))).expect(200)).body.data.site.siteKey;
    for (const [type, message, rating] of [['bug', 'The cart forgets the coupon', 2], ['feedback', 'Lovely new product pages', 5]] as const) {
      await t.http.post('/api/v1/widget/feedback').send({ siteKey, type, message, rating, pageUrl: 'https://acme.example/cart' }).expect(201);
    }
    const page = await context.newPage();
    const seen = watchPage(page);
    await signIn(page);
    await page.getByRole('button', { name: 'Open Acme store' }).click();
    await page.getByText('Lovely new product pages').waitFor();
    expect(await page.locator('tr[data-row]').count()).toBe(2);
    expect(await triageFits(page)).toEqual([{ fits: true, inView: true }, { fits: true, inView: true }]);

    await page.getByLabel('Type', { exact: true }).selectOption('bug');
    await page.waitForFunction(() => (globalThis as any).document.querySelectorAll('tr[data-row]').length === 1);
    await expect(page.locator('tr[data-row]').textContent()).resolves.toContain('The cart forgets the coupon');
    await page.locator('tr[data-row] select.triage').selectOption('triaged');
    await page.getByText('Feedback marked triaged.').waitFor();
    await page.getByLabel('Status', { exact: true }).selectOption('new');
    await page.getByText('No feedback matches these filters.').waitFor();
    await page.getByLabel('Type', { exact: true }).selectOption('');
    await page.getByText('Lovely new product pages').waitFor();
    expect(await page.locator('tr[data-row]').count()).toBe(1);
    await page.getByLabel('Status', { exact: true }).selectOption('');
    await page.locator('tr[data-row]').nth(1).waitFor();
    await page.screenshot({ path: `${SCREENSHOTS_DIR}/dashboard-feedback.png`, fullPage: true });

    // A question batch: two questions, previewed as the server sanitises them, then sent.
    await page.getByRole('tab', { name: 'Question batches' }).click();
    await page.getByRole('button', { name: 'New question batch' }).click();
    await page.getByLabel('Title', { exact: true }).fill('Launch review');
    await page.getByLabel('Introduction').fill('<p>Thanks for <b>looking</b>.</p><script>window.__ran = 1</script>');
    await page.getByLabel('Question 1', { exact: true }).fill('Which pages need new copy?');
    await page.getByLabel('Details for question 1').fill('<p>List them <em>briefly</em>.</p><img src=x onerror="window.__ran = 2">');
    await page.getByRole('button', { name: 'Add question' }).click();
    await page.getByLabel('Question 2', { exact: true }).fill('Anything missing?');
    await page.getByRole('button', { name: 'Preview' }).click();
    const preview = page.locator('#batch-preview-body');
    await preview.locator('em').filter({ hasText: 'briefly' }).waitFor();
    expect(await preview.locator('b').textContent()).toBe('looking');
    expect(await preview.locator('img, script').count()).toBe(0);
    expect(await page.evaluate(() => (globalThis as any).__ran)).toBeUndefined();
    await page.screenshot({ path: `${SCREENSHOTS_DIR}/dashboard-batch-editor.png`, fullPage: true });
    await page.getByRole('button', { name: 'Create and send' }).click();
    const sent = await page.locator('#notice').filter({ hasText: 'Sent.' }).textContent();
    expect(sent).toMatch(/^Sent\. Give the recipient this link: http.*\/q\/[A-Za-z0-9_-]{43}$/);
    const shareToken = sent!.split('/q/')[1];
    const batch = page.locator('[data-batch]').filter({ hasText: 'Launch review' });
    await batch.locator('[data-status=sent]').waitFor();
    await batch.getByRole('button', { name: 'Show share link' }).click();
    await expect(batch.locator('[data-share-link]').textContent()).resolves.toContain(`/q/${shareToken}`);

    // The recipient answers on the share page.
    const share = await context.newPage();
    const shareSeen = watchPage(share);
    await share.goto(`${t.baseUrl}/q/${shareToken}`);
    await share.getByRole('heading', { name: 'Launch review' }).waitFor();
    await share.getByLabel('Your answer to question 1').fill('The pricing page.');
    await share.getByLabel('Your answer to question 2').fill('A size guide.');
    await share.getByRole('button', { name: 'Submit answers' }).click();
    await share.locator('#form-status').filter({ hasText: 'Thank you' }).waitFor();
    await share.screenshot({ path: `${SCREENSHOTS_DIR}/share-page.png`, fullPage: true });
    expect(shareSeen).toEqual({ errors: [], failed: [] });
    await share.close();

    // Back in the dashboard: answered, with the answers beside the questions.
    await page.getByRole('button', { name: 'Open Acme store' }).click();
    await page.getByRole('tab', { name: 'Question batches' }).click();
    const answered = page.locator('[data-batch]').filter({ hasText: 'Launch review' });
    await answered.locator('[data-status=answered]').waitFor();
    await answered.getByRole('button', { name: 'Show questions and answers' }).click();
    await expect(answered.locator('[data-answer="1"]').textContent()).resolves.toBe('The pricing page.');
    await expect(answered.locator('[data-answer="2"]').textContent()).resolves.toBe('A size guide.');
    await page.screenshot({ path: `${SCREENSHOTS_DIR}/dashboard-answers.png`, fullPage: true });
    expect(seen).toEqual({ errors: [], failed: [] });
    await page.close();
  }, 90_000);

  it('works at phone width: nothing wider than the screen, the triage dropdown whole', async () => {
    const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 });
    const page = await phone.newPage();
    const seen = watchPage(page);
    await signIn(page);
    await page.getByRole('button', { name: 'Open Acme store' }).click();
    await page.getByText('Lovely new product pages').waitFor();
    const overflow = await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth - (globalThis as any).innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    expect(await triageFits(page)).toEqual([{ fits: true, inView: true }, { fits: true, inView: true }]);
    await page.screenshot({ path: `${SCREENSHOTS_DIR}/dashboard-phone.png`, fullPage: true });
    expect(seen).toEqual({ errors: [], failed: [] });
    await phone.close();
  }, 60_000);

  it('deletes a site after a second click', async () => {
    const page = await context.newPage();
    await signIn(page);
    const site = page.locator(`[data-site="${siteId}"]`);
    await site.locator('[data-menu]').click();
    await site.getByRole('button', { name: 'Delete' }).click();
    await site.getByRole('button', { name: 'Confirm: delete Acme store and its feedback' }).click();
    await page.getByText('Site “Acme store” deleted.').waitFor();
    await page.locator('[data-empty=sites]').waitFor();
    await t.http.get(`/api/v1/sites/${siteId}`).set(bearer(await t.accessTokenFor(user.id))).expect(404);
    await context.close();
  }, 60_000);
});
