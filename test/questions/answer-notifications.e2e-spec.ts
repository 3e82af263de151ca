import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { SmtpTestServer } from '#libs/testing';
import { ANSWER_MAIL_BUDGETS, answerMailAccountKey, answerMailRecipientKey } from '../../apps/feedback-export/src/questions/answer-notifications.service.js';
import { UNSUBSCRIBE_RATE_LIMIT } from '../../apps/feedback-export/src/questions/share/unsubscribe.controller.js';
import { startApp, type TestApp } from '../support/test-apps.js';
import {
  bearer,
  createOwner,
  createSite,
  mailHeader,
  mailPart,
  QUESTIONS_PUBLIC_BASE as PUBLIC_BASE,
  sampleQuestions,
  startQuestionsApp,
  tokenOfUrl,
  type QuestionsApp,
  type TestOwner,
  type TestSite,
} from './questions-fixtures.js';

/**
 * Issue 27 item 2: the "answered" notification is not a relay. One per batch (also under
 * concurrent submits), daily budgets per recipient and per account, a fixed subject, the
 * caller's text quoted and never a link, and an RFC 8058 one-click unsubscribe per site.
 */
describe('answer notifications: bounded, fixed wording, one-click unsubscribe', () => {
  let t: TestApp & { database: { url: string } };
  let smtp: SmtpTestServer;
  let questions: QuestionsApp;
  let owner: TestOwner;
  let site: TestSite;

  beforeAll(async () => {
    questions = await startQuestionsApp();
    ({ t, smtp, owner, site } = questions);
  });
  afterAll(async () => {
    await questions?.close();
  });

  const recipient = () => `victim-${randomUUID()}@example.test`;

  async function sentBatch(on: TestSite, notifyEmail: string, title = 'Homepage review'): Promise<string> {
    const created = await t.http.post('/api/v1/export/questions').set(bearer(on.writeToken)).send({ title, notifyEmail, sendNow: true, questions: sampleQuestions(2) }).expect(201);
    return tokenOfUrl(created.body.data.shareUrl);
  }
  const save = (token: string, n: number, text: string) => t.http.put(`/api/v1/share/${token}/answers/${n}`).send({ text }).expect(200);
  const submit = (token: string) => t.http.post(`/api/v1/share/${token}/submit`).expect(200);

  /** Mails to `address` once every request before this call has finished (the submit waits for its mail). */
  async function settledCount(address: string): Promise<number> {
    await t.http.get('/api/v1/status').expect(200);
    return smtp.to(address).length;
  }

  it('sends one notification per batch under repeated save + submit', async () => {
    const to = recipient();
    const token = await sentBatch(site, to);
    await save(token, 1, 'first');
    await submit(token);
    await smtp.waitFor(to);
    for (let i = 0; i < 5; i++) {
      await save(token, 1, `edit ${i}`);
      expect((await submit(token)).body).toEqual({ success: true, data: { status: 'answered' } });
    }
    expect(await settledCount(to)).toBe(1);
  });

  it('sends one notification when many submits race', async () => {
    const to = recipient();
    const token = await sentBatch(site, to);
    await save(token, 1, 'answer');
    const answers = await Promise.all(Array.from({ length: 12 }, () => t.http.post(`/api/v1/share/${token}/submit`)));
    expect(answers.map((r) => r.status)).toEqual(Array(12).fill(200));
    await smtp.waitFor(to);
    expect(await settledCount(to)).toBe(1);
  });

  it('gives the claim back when the mail cannot be sent: the next submit sends the one notification', async () => {
    // A replica whose SMTP server refuses connections (nothing listens on port 1).
    const broken = await startApp('feedback-export', t.database.url, { SMTP_URL: 'smtp://127.0.0.1:1', FEEDBACK_PUBLIC_BASE_URL: PUBLIC_BASE });
    try {
      const to = recipient();
      const token = await sentBatch(site, to);
      expect((await broken.http.post(`/api/v1/share/${token}/submit`).expect(200)).body.data.status).toBe('answered');
      expect(await settledCount(to)).toBe(0);
      await submit(token);
      await smtp.waitFor(to);
      await submit(token);
      expect(await settledCount(to)).toBe(1);
    } finally {
      await broken.close();
    }
  });

  it('has a fixed subject; the title is quoted, defanged and never a link, in the text and the HTML part', async () => {
    const to = recipient();
    const title = 'Urgent: verify your account at http://evil.example/login or www.evil.example';
    const token = await sentBatch(site, to, title);
    await save(token, 1, 'Click https://phish.example now');
    await submit(token);
    const mail = await smtp.waitFor(to);
    expect(mailHeader(mail.raw, 'Subject')).toBe('Your questions were answered');
    const head = mail.raw.split(/\r?\n\r?\n/)[0];
    expect(head).not.toMatch(/evil|verify/i);

    const text = mailPart(mail.raw, 'text/plain');
    expect(text).toContain('> Urgent: verify your account at http[:]//evil[.]example/login or www[.]evil[.]example');
    expect(text).toContain('> Main site');
    expect(text).toContain('feedback.example.test');
    expect(text).toContain(`${PUBLIC_BASE}/dashboard`);
    for (const part of [text, mailPart(mail.raw, 'text/html')]) {
      expect(part).not.toMatch(/evil\.example|https?:\/\/evil|phish/);
    }
    const htmlPart = mailPart(mail.raw, 'text/html');
    const hrefs = [...htmlPart.matchAll(/<a\b[^>]*href="([^"]*)"/g)].map((m) => m[1]);
    expect(hrefs.length).toBeGreaterThan(0);
    for (const href of hrefs) expect(href.startsWith(`${PUBLIC_BASE}/`)).toBe(true);
    expect(htmlPart).toContain('<blockquote>');
  });

  it('escapes markup in the title in the HTML part', async () => {
    const to = recipient();
    const token = await sentBatch(site, to, '<a href="https://evil.example">Reset</a> <img src=x>');
    await submit(token);
    const htmlPart = mailPart((await smtp.waitFor(to)).raw, 'text/html');
    expect(htmlPart).toContain('&lt;a href=&quot;https[:]//evil[.]example&quot;&gt;Reset&lt;/a&gt; &lt;img src=x&gt;');
    expect(htmlPart).not.toContain('<img');
  });

  it('carries RFC 8058 one-click unsubscribe; GET only asks, the POST stops later mails to that recipient for that site only', async () => {
    const to = recipient();
    const first = await sentBatch(site, to);
    await submit(first);
    const mail = await smtp.waitFor(to);
    expect(mailHeader(mail.raw, 'List-Unsubscribe-Post')).toBe('List-Unsubscribe=One-Click');
    const link = /^<(https:\/\/[^>]+)>$/.exec(mailHeader(mail.raw, 'List-Unsubscribe') ?? '')?.[1];
    expect(link).toMatch(new RegExp(`^${PUBLIC_BASE}/unsubscribe/[A-Za-z0-9_-]{64}$`));
    const path = new URL(link!).pathname;
    expect(mailPart(mail.raw, 'text/plain')).toContain(link);

    // The page asks with a button; fetching it (a link scanner) unsubscribes nothing.
    const page = await t.http.get(path).expect(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    expect(page.headers['ratelimit-limit']).toBe(String(UNSUBSCRIBE_RATE_LIMIT.limit));
    expect(page.text).toContain(`action="${path}"`);
    expect(page.text).toContain('Main site');
    const second = await sentBatch(site, to);
    await submit(second);
    await smtp.waitFor(to, 1);

    // A forged or altered token is refused.
    const forged = path.slice(0, -2) + (path.endsWith('AA') ? 'BB' : 'AA');
    await t.http.post(forged).type('form').send('List-Unsubscribe=One-Click').expect(404);
    await t.http.get('/unsubscribe/not-a-token').expect(404);

    // The one-click POST a mail client sends (form body), twice: idempotent.
    const done = await t.http.post(path).type('form').send('List-Unsubscribe=One-Click').expect(200);
    expect(done.text).toContain('Unsubscribed');
    await t.http.post(path).type('form').send('List-Unsubscribe=One-Click').expect(200);

    const third = await sentBatch(site, to);
    await save(third, 1, 'answer');
    expect((await submit(third)).body.data.status).toBe('answered');
    expect(await settledCount(to)).toBe(2);

    // Another site's batches still reach that address.
    const other = await createSite(t, owner, 'Other site');
    await submit(await sentBatch(other, to));
    await smtp.waitFor(to, 2);

    // The token is a credential: the access log shows the path without it.
    expect(t.logs.leaksOf([path.split('/').pop()!])).toEqual([]);
  });

  it('keeps a daily budget per recipient, whichever account writes to it; over it the submit still answers 200', async () => {
    const to = recipient();
    const { limit } = ANSWER_MAIL_BUDGETS.perRecipient;
    await submit(await sentBatch(site, to));
    await smtp.waitFor(to);
    await t.rateLimits.set(answerMailRecipientKey(to), limit);

    // Another account, another site: the recipient's budget is spent all the same.
    const stranger = await createOwner(t);
    const strangerSite = await createSite(t, stranger, 'Stranger site');
    const token = await sentBatch(strangerSite, to);
    expect((await submit(token)).body).toEqual({ success: true, data: { status: 'answered' } });
    expect(await settledCount(to)).toBe(1);
    expect(t.logs.text()).toContain('over the daily mail budget');
  });

  /** An owner with a site, whose e-mail address is confirmed (or not), and that address. */
  async function ownerWithAddress(confirmed: boolean): Promise<{ owner: TestOwner; site: TestSite; address: string }> {
    const created = await createOwner(t);
    await t.dataSource.query(`UPDATE users SET email_confirmed = $2 WHERE id = $1`, [created.id, confirmed ? 1 : 0]);
    const [row] = await t.dataSource.query(`SELECT email FROM users WHERE id = $1`, [created.id]);
    return { owner: created, site: await createSite(t, created, 'Owner site'), address: row.email };
  }

  it('gives an owner who confirmed their e-mail a larger account budget (200 a day, not 50)', async () => {
    const { owner: confirmedOwner, site: confirmedSite } = await ownerWithAddress(true);
    const first = recipient();
    await submit(await sentBatch(confirmedSite, first));
    await smtp.waitFor(first);
    await t.rateLimits.set(answerMailAccountKey(confirmedOwner.id), ANSWER_MAIL_BUDGETS.perAccount.limit);
    const within = recipient();
    await submit(await sentBatch(confirmedSite, within));
    await smtp.waitFor(within);

    await t.rateLimits.set(answerMailAccountKey(confirmedOwner.id), ANSWER_MAIL_BUDGETS.confirmedOwner.perAccountLimit);
    const over = recipient();
    await submit(await sentBatch(confirmedSite, over));
    expect(await settledCount(over)).toBe(0);
  });

  it('lets a confirmed owner receive more a day at their own address (100), and only at that one', async () => {
    const { site: confirmedSite, address } = await ownerWithAddress(true);
    await submit(await sentBatch(confirmedSite, address));
    await smtp.waitFor(address);
    await t.rateLimits.set(answerMailRecipientKey(address), ANSWER_MAIL_BUDGETS.perRecipient.limit);
    await submit(await sentBatch(confirmedSite, address));
    await smtp.waitFor(address, 1);
    await t.rateLimits.set(answerMailRecipientKey(address), ANSWER_MAIL_BUDGETS.confirmedOwner.ownAddressLimit);
    await submit(await sentBatch(confirmedSite, address));
    expect(await settledCount(address)).toBe(2);

    // Unconfirmed, the owner's own address has the ordinary recipient budget.
    const { site: unconfirmedSite, address: unconfirmedAddress } = await ownerWithAddress(false);
    await submit(await sentBatch(unconfirmedSite, unconfirmedAddress));
    await smtp.waitFor(unconfirmedAddress);
    await t.rateLimits.set(answerMailRecipientKey(unconfirmedAddress), ANSWER_MAIL_BUDGETS.perRecipient.limit);
    await submit(await sentBatch(unconfirmedSite, unconfirmedAddress));
    expect(await settledCount(unconfirmedAddress)).toBe(1);
  });

  it('keeps a daily budget per account across recipients', async () => {
    const spender = await createOwner(t);
    const spenderSite = await createSite(t, spender, 'Spender site');
    const first = recipient();
    await submit(await sentBatch(spenderSite, first));
    await smtp.waitFor(first);
    await t.rateLimits.set(answerMailAccountKey(spender.id), ANSWER_MAIL_BUDGETS.perAccount.limit);

    const next = recipient();
    await submit(await sentBatch(spenderSite, next));
    expect(await settledCount(next)).toBe(0);
    // The recipient's budget was not spent on the mail the account's budget stopped.
    expect(await t.rateLimits.hits(answerMailRecipientKey(next))).toBe(0);
    // Another account is not affected.
    const other = recipient();
    await submit(await sentBatch(site, other));
    await smtp.waitFor(other);
  });
});
