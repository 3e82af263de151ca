import { mkdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import { insertUser, launchBrowser, SmtpTestServer, type TestUser } from '#libs/testing';
import { FeedbackRepository } from '../../apps/feedback-export/src/feedback/feedback.repository.js';
import { startDashboardApps, type TestApp } from '../support/test-apps.js';
import { bearer, createSite, type TestOwner, type TestSite } from './questions-fixtures.js';
import { submitSignIn } from '../support/sign-in-page.js';

const SHOTS = `${process.cwd()}/test-results`;

/** Everything that would show a script ran: dialogs, calls of a page-level hook, and uncaught errors. */
async function watchForScript(page: Page): Promise<{ dialogs: string[]; hits: string[]; errors: string[] }> {
  const seen = { dialogs: [] as string[], hits: [] as string[], errors: [] as string[] };
  page.on('dialog', (dialog) => {
    seen.dialogs.push(`${dialog.type()}: ${dialog.message()}`);
    void dialog.dismiss();
  });
  page.on('pageerror', (error) => seen.errors.push(error.message));
  await page.exposeFunction('__xssHit', (what: unknown) => seen.hits.push(String(what)));
  // Every way a payload can show itself: dialogs, and the hook the payloads call.
  await page.addInitScript(() => {
    const w = globalThis as any;
    for (const name of ['alert', 'confirm', 'prompt', 'print']) {
      const original = w[name];
      w[name] = (...args: unknown[]) => {
        w.__xssHit(`${name}(${args.join(',')})`);
        return original?.apply(w, args);
      };
    }
  });
  return seen;
}

const XSS = [
  '<script>__xssHit("script")</script>',
  '<img src=x onerror="__xssHit(\'img-onerror\')">',
  '<svg onload="__xssHit(\'svg-onload\')"></svg>',
  '<svg><script>__xssHit("svg-script")</script></svg>',
  '<svg><animate onbegin="__xssHit(\'animate\')" attributeName="x" dur="1s"></animate></svg>',
  '<a href="javascript:__xssHit(\'js-url\')" id="js-link">click me</a>',
  '<a href="jav&#x09;ascript:alert(\'entity-url\')">entity</a>',
  '<iframe src="javascript:alert(\'iframe\')"></iframe>',
  '<object data="javascript:alert(\'object\')"></object>',
  '<details open ontoggle="__xssHit(\'ontoggle\')"><summary>x</summary></details>',
  '<input autofocus onfocus="__xssHit(\'onfocus\')">',
  '<p style="background:url(javascript:alert(1))" onmouseover="__xssHit(\'mouseover\')">hover</p>',
  '<math><mtext><table><mglyph><style><img src=x onerror="__xssHit(\'mxss\')"></style></mglyph></table></mtext></math>',
  '"><script>alert("break-out")</script>',
  '<body onload="__xssHit(\'body\')">',
  '<meta http-equiv="refresh" content="0;url=javascript:alert(1)">',
  '<form action="javascript:alert(1)"><button id="xss-submit">go</button></form>',
];

describe('share page and dashboard in Chromium', () => {
  let apps: Awaited<ReturnType<typeof startDashboardApps>>;
  let t: TestApp;
  let smtp: SmtpTestServer;
  let browser: Browser;
  let user: TestUser;
  let owner: TestOwner;
  let site: TestSite;

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    smtp = new SmtpTestServer();
    await smtp.start();
    apps = await startDashboardApps({ SMTP_URL: smtp.url });
    t = apps.feedback;
    user = await insertUser(t.dataSource);
    const jwt = await t.accessTokenFor(user.id);
    owner = { id: user.id, jwt, portfolioToken: '' };
    site = await createSite(t, owner, 'Client portal');
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await apps?.close();
    await smtp?.stop();
  });

  const shareUrlOnTestServer = (shareUrl: string) => `${t.baseUrl}/q/${shareUrl.split('/q/')[1]}`;

  it('a recipient answers, edits one answer and submits; the owner sees a later updatedAt and gets mail', async () => {
    const created = await t.http
      .post('/api/v1/export/questions')
      .set(bearer(site.writeToken))
      .send({
        title: 'Website relaunch questions',
        introHtml: '<p>Thanks for helping! <strong>Three short questions.</strong></p>',
        sendNow: true,
        questions: [
          { n: 1, title: 'Which pages matter most?', html: '<p>List the <em>top three</em>.</p>' },
          { n: 2, title: 'Any copy to change?', html: '<ul><li>Headlines</li><li>Prices</li></ul>' },
          { n: 3, title: 'Deadline?', html: '<p>A date is enough.</p>' },
        ],
      })
      .expect(201);
    const { id, shareUrl } = created.body.data;
    const page = await browser.newPage({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 1 });
    const seen = await watchForScript(page);
    await page.goto(shareUrlOnTestServer(shareUrl));
    await page.waitForSelector('body[data-ready=true]');
    expect(await page.title()).toBe('Website relaunch questions');
    expect((await t.http.get(`/api/v1/export/questions/${id}`).set(bearer(site.readToken))).body.data.batch.status).toBe('opened');

    // Accessible: each answer field is found by its label.
    await page.getByLabel('Your answer to question 1').fill('Home, pricing, contact');
    await page.locator('button.save[data-n="1"]').click();
    await page.waitForFunction(() => (globalThis as any).document.getElementById('q1-saved').textContent.startsWith('Saved'));
    const firstSave = await page.locator('#q1-saved').getAttribute('data-updated-at');
    await page.getByLabel('Your answer to question 2').fill('The pricing headline');
    await page.getByLabel('Your answer to question 3').fill('End of March');
    await page.getByLabel('Your answer to question 1').click(); // leaving field 3 autosaves it
    await page.waitForFunction(() => ['q2-saved', 'q3-saved'].every((id) => (globalThis as any).document.getElementById(id).textContent.startsWith('Saved')));

    await page.getByLabel('Your answer to question 1').fill('Home, pricing, contact, and the blog');
    await page.getByRole('button', { name: 'Submit answers' }).click();
    await page.waitForFunction(() => (globalThis as any).document.body.getAttribute('data-status') === 'answered');
    await expect(page.locator('#form-status').textContent()).resolves.toContain('Thank you');
    await page.screenshot({ path: `${SHOTS}/share-page-mobile.png`, fullPage: true });
    await page.setViewportSize({ width: 1200, height: 900 });
    await page.screenshot({ path: `${SHOTS}/share-page-desktop.png`, fullPage: true });

    const detail = (await t.http.get(`/api/v1/export/questions/${id}`).set(bearer(site.readToken)).expect(200)).body.data.batch;
    expect(detail.status).toBe('answered');
    expect(detail.questions.map((q: { answer: { text: string } }) => q.answer.text)).toEqual(['Home, pricing, contact, and the blog', 'The pricing headline', 'End of March']);
    const [a1, a2, a3] = detail.questions.map((q: { answer: { updatedAt: string } }) => Date.parse(q.answer.updatedAt));
    expect(a1).toBeGreaterThan(Date.parse(firstSave!));
    expect(a1).toBeGreaterThan(a2);
    expect(a1).toBeGreaterThan(a3);

    const mail = await smtp.waitFor(user.email);
    expect(mail.raw).toContain('Website relaunch questions');
    // The answers are read in the dashboard: the mail carries no recipient-written text but the quoted title.
    expect(mail.raw).not.toContain('End of March');
    expect(seen).toEqual({ dialogs: [], hits: [], errors: [] });
    await page.close();
  });

  it('an unknown link shows a proper 404 page', async () => {
    const page = await browser.newPage();
    const response = await page.goto(`${t.baseUrl}/q/${'x'.repeat(43)}`);
    expect(response?.status()).toBe(404);
    await expect(page.locator('h1').textContent()).resolves.toBe('This link does not work');
    await page.close();
  });

  it('the XSS corpus is live: unsanitised, the page-level hooks catch it', async () => {
    const control = await browser.newPage();
    const seen = await watchForScript(control);
    await control.setContent(`<!doctype html><body>${XSS.join('\n')}</body>`);
    await control.waitForTimeout(300);
    expect(seen.hits.length).toBeGreaterThanOrEqual(3);
    await control.close();
  });

  it('runs nothing from an XSS corpus in questions, intro or title, on the share page and in the dashboard', async () => {
    const created = await t.http
      .post('/api/v1/export/questions')
      .set(bearer(site.writeToken))
      .send({
        title: '<script>__xssHit("title")</script> XSS review',
        introHtml: XSS.join('\n'),
        sendNow: true,
        questions: XSS.map((html, i) => ({ n: i + 1, title: `<img src=x onerror="__xssHit('q-title')"> Q${i + 1}`, html })),
      })
      .expect(201);
    const page = await browser.newPage();
    const seen = await watchForScript(page);
    const violations: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error' && /Content Security Policy/.test(message.text())) violations.push(message.text());
    });
    await page.goto(shareUrlOnTestServer(created.body.data.shareUrl));
    await page.waitForSelector('body[data-ready=true]');
    // Interact the way a user might, to fire any handler that survived.
    // Links lost their javascript: href, so clicking them goes nowhere; a surviving one would run here.
    const clicked = await page.evaluate(() => {
      const links = [...(globalThis as any).document.querySelectorAll('.question-body a, .intro a, .question-body button')];
      for (const link of links) link.click();
      return links.length;
    });
    expect(clicked).toBeGreaterThan(0);
    const scriptUrls = await page.evaluate(() =>
      [...(globalThis as any).document.querySelectorAll('[href], [src], [action], [data], [formaction]')]
        .flatMap((node: any) => ['href', 'src', 'action', 'data', 'formaction'].map((name) => node.getAttribute(name)))
        .filter((value: string | null) => value !== null && /^\s*(javascript|data|vbscript):/i.test(value.split('').filter((c) => c.charCodeAt(0) > 31).join(''))),
    );
    expect(scriptUrls).toEqual([]);
    await page.locator('.question-body').nth(11).hover({ timeout: 1000 });
    await page.waitForTimeout(300);
    expect(await page.locator('h1').textContent()).toBe('<script>__xssHit("title")</script> XSS review');
    expect(await page.evaluate(() => (globalThis as any).document.querySelectorAll('script').length)).toBe(1);
    expect(await page.evaluate(() => (globalThis as any).document.querySelectorAll('.question-body svg, .question-body iframe, .question-body object, .question-body img, .question-body [onerror], .intro img').length)).toBe(0);
    await page.screenshot({ path: `${SHOTS}/share-page-xss.png`, fullPage: true });
    expect(seen).toEqual({ dialogs: [], hits: [], errors: [] });
    expect(violations).toEqual([]);

    // The owner's view renders the same HTML.
    const dash = await browser.newPage();
    const dashSeen = await watchForScript(dash);
    await signIn(dash);
    await dash.getByRole('button', { name: 'Open Client portal' }).click();
    await dash.getByRole('tab', { name: 'Question batches' }).click();
    const card = dash.locator(`[data-batch="${created.body.data.id}"]`);
    await card.getByRole('button', { name: 'Show questions and answers' }).click();
    await card.locator('.question').first().waitFor();
    await dash.waitForTimeout(300);
    expect(dashSeen).toEqual({ dialogs: [], hits: [], errors: [] });
    await dash.close();
    await page.close();
  });

  async function signIn(page: Page): Promise<void> {
    await submitSignIn(page, `${t.baseUrl}/dashboard`, user);
    await page.getByRole('button', { name: 'Open Client portal' }).waitFor();
  }

  it('an owner signs in, rotates a token, triages feedback and sends a draft', async () => {
    const repo = t.app.get(FeedbackRepository);
    const [feedbackId] = await repo.insertMany(undefined, owner.id, [{ siteId: site.id, type: 'bug', message: 'The contact form times out', rating: 2, pageUrl: 'https://client.example/contact' }]);
    const draft = (await t.http.post('/api/v1/export/questions').set(bearer(site.writeToken)).send({ title: 'Draft for launch', questions: [{ n: 1, title: 'Ready?', html: '<p>Yes or no.</p>' }] }).expect(201))
      .body.data;

    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    const seen = await watchForScript(page);
    await page.goto(`${t.baseUrl}/dashboard`);
    await page.waitForSelector('body[data-ready=true]');
    expect(await page.getByRole('button', { name: 'Sign out' }).isVisible()).toBe(false);
    // A wrong password is refused in the page.
    await page.getByLabel('E-mail').fill(user.email);
    await page.getByLabel('Password').fill('wrong-password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.locator('#sign-in-error').filter({ hasText: 'Wrong e-mail or password.' }).textContent()).resolves.toBe('Wrong e-mail or password.');
    await signIn(page);

    // Rotate the read token: two clicks, the secret shown once, the old token dead at once.
    const siteCard = page.locator(`[data-site="${site.id}"]`);
    // Token actions live behind the card's menu.
    await siteCard.locator('[data-menu]').click();
    await siteCard.getByRole('button', { name: 'Rotate read token' }).click();
    await siteCard.getByRole('button', { name: 'Confirm: replace the read token' }).click();
    const secret = (await siteCard.locator('[data-secret=read]').textContent())!;
    expect(secret).toMatch(/^sk_[A-Za-z0-9_-]{43}$/);
    expect((await t.http.get('/api/v1/export/questions').set(bearer(site.readToken)).expect(401)).body.error.code).toBe('INVALID_TOKEN');
    await t.http.get('/api/v1/export/questions').set(bearer(secret)).expect(200);
    site.readToken = secret;

    // Feedback with triage.
    await page.getByRole('button', { name: 'Open Client portal' }).click();
    const select = page.locator(`select[data-feedback="${feedbackId}"]`);
    await select.waitFor();
    await expect(page.getByText('The contact form times out').isVisible()).resolves.toBe(true);
    await select.selectOption('triaged');
    await page.getByText('Feedback marked triaged.').waitFor();
    const exported = (await t.http.get('/api/v1/export/feedback').set(bearer(site.readToken)).expect(200)).body.data.feedback;
    expect(exported.find((f: { id: string }) => f.id === feedbackId).status).toBe('triaged');

    // Send the draft.
    await page.getByRole('tab', { name: 'Question batches' }).click();
    await page.locator(`[data-batch="${draft.id}"] [data-status=draft]`).waitFor();
    await page.screenshot({ path: `${SHOTS}/dashboard-batches.png`, fullPage: true });
    await page.getByRole('button', { name: 'Send “Draft for launch”' }).click();
    await page.locator(`[data-batch="${draft.id}"] [data-status=sent]`).waitFor();
    await expect(page.locator('#notice').textContent()).resolves.toMatch(/^Sent\. Give the recipient this link: http.*\/q\/[A-Za-z0-9_-]{43}$/);
    const listed = (await t.http.get('/api/v1/export/questions').set(bearer(site.readToken)).expect(200)).body.data.batches;
    expect(listed.find((b: { id: string }) => b.id === draft.id).status).toBe('sent');
    await page.getByRole('tab', { name: 'Feedback' }).click();
    await page.screenshot({ path: `${SHOTS}/dashboard-feedback.png`, fullPage: true });

    // An expired access token is refreshed through the account service without signing in again.
    await page.evaluate(() => {
      const store = (globalThis as any).sessionStorage;
      const saved = JSON.parse(store.getItem('feedback-dashboard-session'));
      store.setItem('feedback-dashboard-session', JSON.stringify({ ...saved, token: 'expired.access.token' }));
    });
    await page.reload();
    // The URL keeps the open site (a shared link opens the same list): its feedback shows once the refresh worked.
    await page.getByText('The contact form times out').waitFor();
    expect(await page.evaluate(() => JSON.parse((globalThis as any).sessionStorage.getItem('feedback-dashboard-session')).token)).not.toBe('expired.access.token');

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('E-mail').waitFor();
    expect(await page.getByRole('button', { name: 'Sign out' }).isVisible()).toBe(false);
    expect(await page.locator('#app').isVisible()).toBe(false);
    expect(seen).toEqual({ dialogs: [], hits: [], errors: [] });
    await page.close();
  });
});
