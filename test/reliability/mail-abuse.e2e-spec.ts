import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { SmtpTestServer } from '#libs/testing';
import { ANSWER_MAIL_BUDGETS } from '../../apps/feedback-export/src/questions/answer-notifications.service.js';
import { bearer, createOwner, createSite, sampleQuestions, tokenOfUrl, type TestSite } from '../questions/questions-fixtures.js';
import { startWithDatabase, type TestApp } from '../support/test-apps.js';
import { writeFigures } from './support/figures.js';

/**
 * Issue 27 item 2, as the attacker ran it: free accounts point question batches at one victim's
 * address and answer them on their own share pages, again and again and concurrently. The figure
 * for the reliability summary: mail the platform sent to that one recipient.
 */
const ACCOUNTS = 3;
const BATCHES_PER_ACCOUNT = 8;
const SUBMITS_PER_BATCH = 4;
const VICTIM = 'victim-of-relay@example.test';

const figures = { accounts: ACCOUNTS, batches: 0, submits: 0, submitsAnswered200: 0, mailSentToRecipient: 0, recipientDailyBudget: ANSWER_MAIL_BUDGETS.perRecipient.limit };

describe('mail abuse: many batches and submits aimed at one recipient', () => {
  const smtp = new SmtpTestServer();
  let t: TestApp;

  beforeAll(async () => {
    await smtp.start();
    t = await startWithDatabase('feedback-export', { SMTP_URL: smtp.url, FEEDBACK_PUBLIC_BASE_URL: 'https://feedback.example.test' });
  });
  afterAll(async () => {
    writeFigures('mail-abuse', figures);
    await t?.close();
    await smtp.stop();
  });

  async function abuseFrom(site: TestSite): Promise<void> {
    for (let b = 0; b < BATCHES_PER_ACCOUNT; b++) {
      const created = await t.http
        .post('/api/v1/export/questions')
        .set(bearer(site.writeToken))
        .send({ title: `Reset your password at http://evil.example/${b}`, notifyEmail: VICTIM, sendNow: true, questions: sampleQuestions(1) })
        .expect(201);
      figures.batches++;
      const token = tokenOfUrl(created.body.data.shareUrl);
      for (let s = 0; s < SUBMITS_PER_BATCH; s++) {
        await t.http.put(`/api/v1/share/${token}/answers/1`).send({ text: `spam ${s}` }).expect(200);
        // Two submits at once each round: the races of the attack.
        const answers = await Promise.all([0, 1].map(() => t.http.post(`/api/v1/share/${token}/submit`)));
        figures.submits += answers.length;
        figures.submitsAnswered200 += answers.filter((r) => r.status === 200).length;
      }
    }
  }

  it('sends the recipient at most its daily budget, and every submit still answers 200', async () => {
    const sites: TestSite[] = [];
    for (let a = 0; a < ACCOUNTS; a++) sites.push(await createSite(t, await createOwner(t), `Abuser ${a}`));
    for (const site of sites) await abuseFrom(site);
    await t.http.get('/api/v1/status').expect(200);
    figures.mailSentToRecipient = smtp.to(VICTIM).length;

    expect(figures.batches).toBeGreaterThan(ANSWER_MAIL_BUDGETS.perRecipient.limit);
    expect(figures.submitsAnswered200).toBe(figures.submits);
    expect(figures.mailSentToRecipient).toBe(ANSWER_MAIL_BUDGETS.perRecipient.limit);
  });
});
