import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { SmtpTestServer } from '#libs/testing';
import { FeedbackRepository } from '../../apps/feedback-export/src/feedback/feedback.repository.js';
import type { TestApp } from '../support/test-apps.js';
import { validateOpenApi } from '../support/validate-openapi.js';
import { resetRateLimits } from '../feedback/feedback-fixtures.js';
import {
  bearer,
  createOwner,
  createSite,
  QUESTIONS_PUBLIC_BASE as PUBLIC_BASE,
  sampleQuestions,
  shareTokenOf,
  startQuestionsApp,
  tokenOfUrl,
  type QuestionsApp,
  type TestOwner,
  type TestSite,
} from './questions-fixtures.js';

describe('question batches API (site tokens, owner send, share routes)', () => {
  let t: TestApp;
  let smtp: SmtpTestServer;
  let questions: QuestionsApp;
  let owner: TestOwner;
  let site: TestSite;
  let otherSite: TestSite;
  let stranger: TestOwner;
  let ownerEmail: string;

  beforeAll(async () => {
    questions = await startQuestionsApp();
    ({ t, smtp, owner, site } = questions);
    otherSite = await createSite(t, owner, 'Other site');
    stranger = await createOwner(t);
    ownerEmail = (await t.dataSource.query(`SELECT email FROM users WHERE id = $1`, [owner.id]))[0].email;
  });
  afterAll(async () => {
    await questions?.close();
  });

  const create = (token: string, body: object) => t.http.post('/api/v1/export/questions').set(bearer(token)).send(body);

  it('creates a draft with the write token only: no link in the answer', async () => {
    const res = await create(site.writeToken, { title: 'Homepage review', questions: sampleQuestions() }).expect(201);
    expect(res.body).toEqual({ success: true, data: { id: expect.stringMatching(/^[0-9a-f-]{36}$/), status: 'draft' } });

    for (const token of [site.readToken, owner.portfolioToken, 'wk_' + 'x'.repeat(43), owner.jwt]) {
      const refused = await create(token, { title: 'x', questions: sampleQuestions(1) }).expect(401);
      expect(refused.body.error.code).toBe('INVALID_TOKEN');
    }
    expect((await t.http.post('/api/v1/export/questions').send({ title: 'x', questions: sampleQuestions(1) }).expect(401)).body.error.code).toBe('INVALID_TOKEN');
  });

  it('creates a sent batch with sendNow: an unguessable share URL under FEEDBACK_PUBLIC_BASE_URL', async () => {
    const a = (await create(site.writeToken, { title: 'Now', sendNow: true, questions: sampleQuestions(2) }).expect(201)).body.data;
    const b = (await create(site.writeToken, { title: 'Now 2', sendNow: true, questions: sampleQuestions(2) }).expect(201)).body.data;
    expect(a).toEqual({ id: expect.any(String), status: 'sent', shareUrl: expect.stringMatching(/^https:\/\/feedback\.example\.test\/q\/[A-Za-z0-9_-]{43}$/) });
    expect(tokenOfUrl(a.shareUrl)).not.toBe(tokenOfUrl(b.shareUrl));
    // 43 base64url characters carry 258 bits; only a hash and a sealed copy are stored.
    const stored = JSON.stringify(await t.dataSource.query(`SELECT * FROM question_batches WHERE id = $1`, [a.id]));
    expect(stored).not.toContain(tokenOfUrl(a.shareUrl));
  });

  it('validates the create request', async () => {
    const q = sampleQuestions(1)[0];
    const bad: object[] = [
      {},
      { title: '', questions: [q] },
      { title: '   ', questions: [q] },
      { title: 'x'.repeat(201), questions: [q] },
      { title: 'ok', questions: [] },
      { title: 'ok', questions: Array.from({ length: 101 }, (_, i) => ({ ...q, n: i + 1 })) },
      { title: 'ok', questions: [q, { ...q, title: 'dup' }] },
      { title: 'ok', questions: [{ ...q, n: 0 }] },
      { title: 'ok', questions: [{ ...q, n: 1.5 }] },
      { title: 'ok', questions: [{ ...q, n: '1' }] },
      { title: 'ok', questions: [{ ...q, title: 'x'.repeat(201) }] },
      { title: 'ok', questions: [{ ...q, title: '' }] },
      { title: 'ok', questions: [{ ...q, html: 'x'.repeat(20_001) }] },
      { title: 'ok', questions: [{ ...q, extra: true }] },
      { title: 'ok', questions: [q], introHtml: 'x'.repeat(20_001) },
      { title: 'ok', questions: [q], notifyEmail: 'not-an-email' },
      { title: 'ok', questions: [q], sendNow: 'yes' },
      { title: 'ok', questions: [q], unknown: 1 },
      { title: 'ok', questions: 'nope' },
      { title: 'ok', questions: [null] },
    ];
    for (const body of bad) {
      const res = await create(site.writeToken, body);
      expect([res.status, res.body.error?.code, JSON.stringify(body).slice(0, 60)]).toEqual([400, 'VALIDATION_ERROR', JSON.stringify(body).slice(0, 60)]);
    }
    const dup = await create(site.writeToken, { title: 'ok', questions: [q, { ...q, title: 'dup' }] }).expect(400);
    expect(dup.body.error.details.fields).toEqual([{ field: 'questions.1.n', messages: ['n 1 is used by more than one question'] }]);
    const huge = await create(site.writeToken, { title: 'huge', questions: Array.from({ length: 60 }, (_, i) => ({ n: i + 1, title: 't', html: 'h'.repeat(20_000) })) }).expect(413);
    expect(huge.body.error.code).toBe('PAYLOAD_TOO_LARGE');
    const array = await t.http.post('/api/v1/export/questions').set(bearer(site.writeToken)).set('Content-Type', 'application/json').send('[1]').expect(400);
    expect(array.body.error.code).toBe('VALIDATION_ERROR');
    // The limits themselves are accepted.
    await create(site.writeToken, { title: 'x'.repeat(200), questions: Array.from({ length: 100 }, (_, i) => ({ n: 100 - i, title: 'y'.repeat(200), html: 'z'.repeat(100) })) }).expect(201);
    await create(site.writeToken, { title: 'big', questions: [{ ...q, html: 'h'.repeat(20_000) }], introHtml: 'i'.repeat(20_000) }).expect(201);
    // This test alone spends most of the write token's minute; the rest of the file starts afresh.
    await resetRateLimits(t);
  });

  it('lists the site batches with status and counts for sk_ and wk_, never a link, never another site’s', async () => {
    const sent = (await create(site.writeToken, { title: 'Listed', sendNow: true, questions: sampleQuestions(4) }).expect(201)).body.data;
    const elsewhere = (await create(otherSite.writeToken, { title: 'Elsewhere', questions: sampleQuestions(1) }).expect(201)).body.data;
    for (const token of [site.readToken, site.writeToken]) {
      const res = await t.http.get('/api/v1/export/questions').set(bearer(token)).expect(200);
      const batches = res.body.data.batches;
      const mine = batches.find((b: { id: string }) => b.id === sent.id);
      expect(mine).toEqual({
        id: sent.id,
        title: 'Listed',
        status: 'sent',
        questionCount: 4,
        answerCount: 0,
        createdAt: expect.stringMatching(/Z$/),
        sentAt: expect.stringMatching(/Z$/),
        openedAt: null,
        answeredAt: null,
      });
      expect(batches.map((b: { id: string }) => b.id)).not.toContain(elsewhere.id);
      expect(JSON.stringify(res.body)).not.toContain('/q/');
      expect(JSON.stringify(res.body)).not.toContain(tokenOfUrl(sent.shareUrl));
      expect(res.headers['ratelimit-limit']).toBe('60');
    }
    expect((await t.http.get('/api/v1/export/questions').set(bearer(owner.portfolioToken)).expect(401)).body.error.code).toBe('INVALID_TOKEN');
  });

  it('shows the detail: sanitised html, questions in order beside answers, notifyEmail defaulting to the owner', async () => {
    const created = (
      await create(site.writeToken, {
        title: 'Detail',
        introHtml: '<p>Hello<script>alert(1)</script></p>',
        questions: [
          { n: 7, title: 'Seven', html: '<p onclick="x()">seven <a href="javascript:alert(1)">link</a></p>' },
          { n: 2, title: 'Two', html: '<b>two</b>' },
        ],
      }).expect(201)
    ).body.data;
    const res = await t.http.get(`/api/v1/export/questions/${created.id}`).set(bearer(site.readToken)).expect(200);
    expect(res.body.data.batch).toMatchObject({
      id: created.id,
      title: 'Detail',
      status: 'draft',
      introHtml: '<p>Hello</p>',
      notifyEmail: ownerEmail,
      questionCount: 2,
      answerCount: 0,
      questions: [
        { n: 2, title: 'Two', html: '<b>two</b>', answer: null },
        { n: 7, title: 'Seven', html: '<p>seven <a rel="noopener noreferrer nofollow" target="_blank">link</a></p>', answer: null },
      ],
    });
    const explicit = (await create(site.writeToken, { title: 'To', notifyEmail: 'pm@example.test', questions: sampleQuestions(1) }).expect(201)).body.data;
    expect((await t.http.get(`/api/v1/export/questions/${explicit.id}`).set(bearer(site.writeToken)).expect(200)).body.data.batch.notifyEmail).toBe('pm@example.test');

    expect((await t.http.get(`/api/v1/export/questions/${created.id}`).set(bearer(otherSite.readToken)).expect(404)).body.error.code).toBe('NOT_FOUND');
    expect((await t.http.get('/api/v1/export/questions/not-a-uuid').set(bearer(site.readToken)).expect(400)).body.error.code).toBe('VALIDATION_ERROR');
    expect((await t.http.get(`/api/v1/export/questions/${created.id}`).expect(401)).body.error.code).toBe('INVALID_TOKEN');
  });

  it('hands out the link of a sent batch to wk_ only; a draft is 409 BATCH_NOT_SENT', async () => {
    const sent = (await create(site.writeToken, { title: 'Linked', sendNow: true, questions: sampleQuestions(1) }).expect(201)).body.data;
    const draft = (await create(site.writeToken, { title: 'Draft', questions: sampleQuestions(1) }).expect(201)).body.data;
    expect((await t.http.get(`/api/v1/export/questions/${sent.id}/link`).set(bearer(site.writeToken)).expect(200)).body).toEqual({ success: true, data: { shareUrl: sent.shareUrl } });
    expect((await t.http.get(`/api/v1/export/questions/${draft.id}/link`).set(bearer(site.writeToken)).expect(409)).body.error.code).toBe('BATCH_NOT_SENT');
    expect((await t.http.get(`/api/v1/export/questions/${sent.id}/link`).set(bearer(site.readToken)).expect(401)).body.error.code).toBe('INVALID_TOKEN');
    expect((await t.http.get(`/api/v1/export/questions/${sent.id}/link`).set(bearer(otherSite.writeToken)).expect(404)).body.error.code).toBe('NOT_FOUND');
  });

  it('lets the owner create a batch on their site with the JWT (the dashboard editor), with the write token’s rules', async () => {
    const path = `/api/v1/sites/${site.id}/questions`;
    const draft = await t.http.post(path).set(bearer(owner.jwt)).send({ title: 'From the dashboard', introHtml: '<p>Hi<script>x()</script></p>', questions: sampleQuestions(2) }).expect(201);
    expect(draft.body.data).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), status: 'draft' });
    const stored = (await t.http.get(`${path}/${draft.body.data.id}`).set(bearer(owner.jwt)).expect(200)).body.data.batch;
    expect(stored).toMatchObject({ title: 'From the dashboard', introHtml: '<p>Hi</p>', notifyEmail: ownerEmail, questions: [{ n: 1 }, { n: 2 }] });
    const sent = await t.http.post(path).set(bearer(owner.jwt)).send({ title: 'Sent at once', sendNow: true, questions: sampleQuestions(1) }).expect(201);
    expect(sent.body.data.shareUrl).toMatch(/^https:\/\/feedback\.example\.test\/q\/[A-Za-z0-9_-]{43}$/);

    expect((await t.http.post(path).set(bearer(stranger.jwt)).send({ title: 'x', questions: sampleQuestions(1) }).expect(404)).body.error.code).toBe('NOT_FOUND');
    expect((await t.http.post(path).set(bearer(site.writeToken)).send({ title: 'x', questions: sampleQuestions(1) }).expect(401)).body.error.code).toBe('AUTH_REQUIRED');
    const duplicate = await t.http.post(path).set(bearer(owner.jwt)).send({ title: 'x', questions: [sampleQuestions(1)[0], sampleQuestions(1)[0]] }).expect(400);
    expect(duplicate.body.error.details.fields).toEqual([{ field: 'questions.1.n', messages: ['n 1 is used by more than one question'] }]);
    const missing = await t.http.post(path).set(bearer(owner.jwt)).send({ questions: sampleQuestions(1) }).expect(400);
    expect(missing.body.error).toMatchObject({ code: 'VALIDATION_ERROR', message: 'title is required' });
  });

  it('previews question HTML sanitised by the server for the owner, storing nothing', async () => {
    const path = `/api/v1/sites/${site.id}/questions/preview`;
    const before = (await t.dataSource.query(`SELECT count(*)::int AS n FROM question_batches`))[0].n;
    const res = await t.http
      .post(path)
      .set(bearer(owner.jwt))
      .send({ introHtml: '<p onclick="x()">Intro</p><img src=x onerror=alert(1)>', questions: [{ n: 2, title: ' Second ', html: '<a href="javascript:alert(1)">js</a><b>kept</b>' }, { n: 1, title: 'First', html: '<script>alert(1)</script><ul><li>item</li></ul>' }] })
      .expect(200);
    expect(res.body.data).toEqual({
      introHtml: '<p>Intro</p>',
      questions: [
        { n: 1, title: 'First', html: '<ul><li>item</li></ul>' },
        { n: 2, title: 'Second', html: '<a rel="noopener noreferrer nofollow" target="_blank">js</a><b>kept</b>' },
      ],
    });
    expect((await t.dataSource.query(`SELECT count(*)::int AS n FROM question_batches`))[0].n).toBe(before);
    expect((await t.http.post(path).set(bearer(stranger.jwt)).send({ questions: sampleQuestions(1) }).expect(404)).body.error.code).toBe('NOT_FOUND');
    expect((await t.http.post(path).send({ questions: sampleQuestions(1) }).expect(401)).body.error.code).toBe('AUTH_REQUIRED');
  });

  it('lets the owner send a draft (JWT): draft -> sent with the live link; another account gets 404', async () => {
    const draft = (await create(site.writeToken, { title: 'To send', questions: sampleQuestions(2) }).expect(201)).body.data;
    const token = await shareTokenOf(t, draft.id);
    expect((await t.http.get(`/api/v1/share/${token}`).expect(404)).body.error.code).toBe('NOT_FOUND');
    const page = await t.http.get(`/q/${token}`).expect(404);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    expect(page.text).toContain('This link does not work');

    const path = `/api/v1/sites/${site.id}/questions/${draft.id}/send`;
    expect((await t.http.post(path).expect(401)).body.error.code).toBe('AUTH_REQUIRED');
    expect((await t.http.post(path).set(bearer(site.writeToken)).expect(401)).body.error.code).toBe('AUTH_REQUIRED');
    expect((await t.http.post(path).set(bearer(stranger.jwt)).expect(404)).body.error.code).toBe('NOT_FOUND');
    expect((await t.http.post(`/api/v1/sites/${otherSite.id}/questions/${draft.id}/send`).set(bearer(owner.jwt)).expect(404)).body.error.code).toBe('NOT_FOUND');
    expect((await t.http.post(`/api/v1/sites/${site.id}/questions/nope/send`).set(bearer(owner.jwt)).expect(400)).body.error.code).toBe('VALIDATION_ERROR');

    const sent = await t.http.post(path).set(bearer(owner.jwt)).expect(200);
    expect(sent.body.data).toEqual({ id: draft.id, status: 'sent', shareUrl: `${PUBLIC_BASE}/q/${token}` });
    expect((await t.http.post(path).set(bearer(owner.jwt)).expect(200)).body.data).toEqual(sent.body.data);
    expect((await t.http.get(`/api/v1/export/questions/${draft.id}/link`).set(bearer(site.writeToken)).expect(200)).body.data.shareUrl).toBe(sent.body.data.shareUrl);
    await t.http.get(`/api/v1/share/${token}`).expect(200);

    // The owner's own views used by the dashboard.
    const list = await t.http.get(`/api/v1/sites/${site.id}/questions`).set(bearer(owner.jwt)).expect(200);
    expect(list.body.data.batches.map((b: { id: string }) => b.id)).toContain(draft.id);
    expect(JSON.stringify(list.body)).not.toContain('/q/');
    expect((await t.http.get(`/api/v1/sites/${site.id}/questions`).set(bearer(stranger.jwt)).expect(404)).body.error.code).toBe('NOT_FOUND');
    expect((await t.http.get(`/api/v1/sites/${site.id}/questions/${draft.id}`).set(bearer(owner.jwt)).expect(200)).body.data.batch.questions).toHaveLength(2);
    expect((await t.http.get(`/api/v1/sites/${site.id}/questions/${draft.id}`).set(bearer(stranger.jwt)).expect(404)).body.error.code).toBe('NOT_FOUND');
    expect((await t.http.get(`/api/v1/sites/${site.id}/questions/${draft.id}/link`).set(bearer(owner.jwt)).expect(200)).body.data.shareUrl).toBe(sent.body.data.shareUrl);
  });

  it('moves draft -> sent -> opened -> answered, mails notifyEmail, and keeps per-answer updatedAt across edits', async () => {
    const draft = (await create(site.writeToken, { title: 'Lifecycle', questions: sampleQuestions(3) }).expect(201)).body.data;
    const shareUrl = (await t.http.post(`/api/v1/sites/${site.id}/questions/${draft.id}/send`).set(bearer(owner.jwt)).expect(200)).body.data.shareUrl;
    const token = tokenOfUrl(shareUrl);
    const status = async () => (await t.http.get(`/api/v1/export/questions/${draft.id}`).set(bearer(site.readToken)).expect(200)).body.data.batch;
    expect((await status()).status).toBe('sent');

    const page = await t.http.get(`/q/${token}`).expect(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    expect(page.headers['content-security-policy']).toContain("default-src 'none'");
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    expect(page.text).toContain('Lifecycle');
    // Fetching the HTML alone (a link previewer) is not a view; the page's script fetching the batch is.
    expect((await status()).status).toBe('sent');
    await t.http.get(`/api/v1/share/${token}`).expect(200);
    const opened = await status();
    expect(opened).toMatchObject({ status: 'opened', openedAt: expect.any(String), answeredAt: null });

    const shared = (await t.http.get(`/api/v1/share/${token}`).expect(200)).body.data.batch;
    expect(shared).toEqual({
      title: 'Lifecycle',
      introHtml: '',
      status: 'opened',
      answeredAt: null,
      questions: sampleQuestions(3).map((q) => ({ ...q, answer: null })),
    });
    expect(JSON.stringify(shared)).not.toContain('notifyEmail');

    const a1 = (await t.http.put(`/api/v1/share/${token}/answers/1`).send({ text: 'First answer' }).expect(200)).body.data.answer;
    expect(a1).toEqual({ n: 1, text: 'First answer', updatedAt: expect.stringMatching(/Z$/) });
    const a2 = (await t.http.put(`/api/v1/share/${token}/answers/2`).send({ text: 'Second <b>answer</b>' }).expect(200)).body.data.answer;
    expect((await status()).answerCount).toBe(2);

    const before = smtp.to(ownerEmail).length;
    expect((await t.http.post(`/api/v1/share/${token}/submit`).expect(200)).body).toEqual({ success: true, data: { status: 'answered' } });
    const mail = await smtp.waitFor(ownerEmail, before);
    expect(mail.raw).toContain('Lifecycle');
    const answered = await status();
    expect(answered).toMatchObject({ status: 'answered', answeredAt: expect.any(String) });

    const edited = (await t.http.put(`/api/v1/share/${token}/answers/1`).send({ text: 'First answer, edited' }).expect(200)).body.data.answer;
    expect(Date.parse(edited.updatedAt)).toBeGreaterThan(Date.parse(a1.updatedAt));
    const detail = await status();
    expect(detail.status).toBe('answered');
    expect(detail.answeredAt).toBe(answered.answeredAt);
    expect(detail.questions.map((q: { answer: unknown }) => q.answer)).toEqual([
      { text: 'First answer, edited', updatedAt: edited.updatedAt },
      { text: 'Second <b>answer</b>', updatedAt: a2.updatedAt },
      null,
    ]);

    // A batch notifies once: a second submit after an edit sends nothing more (test/questions/answer-notifications).
    await t.http.post(`/api/v1/share/${token}/submit`).expect(200);
    await t.http.get('/api/v1/status').expect(200);
    expect(smtp.to(ownerEmail).length).toBe(before + 1);

    // The share token is a credential: request logs show the path without it.
    expect(t.logs.text()).toContain('/api/v1/share/[redacted]/answers/1');
    expect(t.logs.text()).toContain('/q/[redacted]');
    expect(t.logs.leaksOf([token])).toEqual([]);
  });

  it('refuses bad answers and unknown tokens or questions', async () => {
    const sent = (await create(site.writeToken, { title: 'Answers', sendNow: true, questions: sampleQuestions(2) }).expect(201)).body.data;
    const token = tokenOfUrl(sent.shareUrl);
    for (const body of [{}, { text: '' }, { text: '   ' }, { text: 'x'.repeat(20_001) }, { text: 5 }, { text: 'ok', extra: 1 }]) {
      expect((await t.http.put(`/api/v1/share/${token}/answers/1`).send(body).expect(400)).body.error.code).toBe('VALIDATION_ERROR');
    }
    await t.http.put(`/api/v1/share/${token}/answers/1`).send({ text: 'x'.repeat(20_000) }).expect(200);
    expect((await t.http.put(`/api/v1/share/${token}/answers/0`).send({ text: 'a' }).expect(400)).body.error.code).toBe('VALIDATION_ERROR');
    expect((await t.http.put(`/api/v1/share/${token}/answers/abc`).send({ text: 'a' }).expect(400)).body.error.code).toBe('VALIDATION_ERROR');
    expect((await t.http.put(`/api/v1/share/${token}/answers/3`).send({ text: 'a' }).expect(404)).body.error.code).toBe('NOT_FOUND');
    const unknown = 'A'.repeat(43);
    for (const path of [`/api/v1/share/${unknown}`, '/api/v1/share/short']) {
      expect((await t.http.get(path).expect(404)).body.error.code).toBe('NOT_FOUND');
    }
    expect((await t.http.put(`/api/v1/share/${unknown}/answers/1`).send({ text: 'a' }).expect(404)).body.error.code).toBe('NOT_FOUND');
    expect((await t.http.post(`/api/v1/share/${unknown}/submit`).expect(404)).body.error.code).toBe('NOT_FOUND');
    const page = await t.http.get(`/q/${unknown}`).expect(404);
    expect(page.text).toContain('This link does not work');
    expect(page.headers['content-security-policy']).toContain("default-src 'none'");
  });

  it('saves concurrent answers on one share page without losing any or failing', async () => {
    const sent = (await create(site.writeToken, { title: 'Concurrent', sendNow: true, questions: sampleQuestions(10) }).expect(201)).body.data;
    const token = tokenOfUrl(sent.shareUrl);
    const distinct = Array.from({ length: 10 }, (_, i) => t.http.put(`/api/v1/share/${token}/answers/${i + 1}`).send({ text: `answer ${i + 1}` }));
    const same = Array.from({ length: 8 }, (_, i) => t.http.put(`/api/v1/share/${token}/answers/1`).send({ text: `racing ${i}` }));
    const results = await Promise.all([...distinct, ...same]);
    expect(results.map((r) => r.status)).toEqual(Array(18).fill(200));
    const detail = (await t.http.get(`/api/v1/export/questions/${sent.id}`).set(bearer(site.readToken)).expect(200)).body.data.batch;
    expect(detail.answerCount).toBe(10);
    expect(detail.questions.slice(1).map((q: { answer: { text: string } }) => q.answer.text)).toEqual(Array.from({ length: 9 }, (_, i) => `answer ${i + 2}`));
    expect(['answer 1', ...Array.from({ length: 8 }, (_, i) => `racing ${i}`)]).toContain(detail.questions[0].answer.text);
    const rows = await t.dataSource.query(`SELECT count(*)::int AS c FROM batch_answers a JOIN question_batches b ON b.id = a.batch_id WHERE b.id = $1`, [sent.id]);
    expect(rows[0].c).toBe(10);
  });

  it('removes batches with their site: the share link stops working', async () => {
    const doomed = await createSite(t, owner, 'Doomed');
    const sent = (await create(doomed.writeToken, { title: 'Gone soon', sendNow: true, questions: sampleQuestions(1) }).expect(201)).body.data;
    const token = tokenOfUrl(sent.shareUrl);
    await t.http.put(`/api/v1/share/${token}/answers/1`).send({ text: 'hi' }).expect(200);
    await t.http.delete(`/api/v1/sites/${doomed.id}`).set(bearer(owner.jwt)).expect(200);
    await t.http.get(`/api/v1/share/${token}`).expect(404);
    expect((await t.dataSource.query(`SELECT count(*)::int AS c FROM question_batches WHERE id = $1`, [sent.id]))[0].c).toBe(0);
  });

  it('shares one 60/minute budget per token across question and feedback routes', async () => {
    const limited = await createSite(t, owner, 'Limited');
    for (let i = 0; i < 30; i++) await t.http.get('/api/v1/export/feedback').set(bearer(limited.readToken)).expect(200);
    for (let i = 0; i < 30; i++) await t.http.get('/api/v1/export/questions').set(bearer(limited.readToken)).expect(200);
    const over = await t.http.get('/api/v1/export/questions').set(bearer(limited.readToken)).expect(429);
    expect(over.body.error.code).toBe('RATE_LIMITED');
    expect(Number(over.headers['retry-after'])).toBeGreaterThan(0);
    // The write token of the same site has its own budget.
    await t.http.get('/api/v1/export/questions').set(bearer(limited.writeToken)).expect(200);
  });

  it('documents every question, share and dashboard route in a valid OpenAPI document', async () => {
    const doc = (await t.http.get('/api/v1/openapi.json').expect(200)).body;
    expect(await validateOpenApi(doc)).toBe('valid');
    const operations: Record<string, string> = {};
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(item)) operations[`${method.toUpperCase()} ${path}`] = op.operationId;
    }
    expect(operations).toMatchObject({
      'POST /api/v1/export/questions': 'createQuestionBatch',
      'GET /api/v1/export/questions': 'listQuestionBatches',
      'GET /api/v1/export/questions/{id}': 'getQuestionBatch',
      'GET /api/v1/export/questions/{id}/link': 'getQuestionBatchLink',
      'POST /api/v1/sites/{siteId}/questions/{batchId}/send': 'sendQuestionBatch',
      'GET /api/v1/sites/{siteId}/questions': 'listSiteQuestionBatches',
      'GET /api/v1/share/{shareToken}': 'getSharedBatch',
      'PUT /api/v1/share/{shareToken}/answers/{n}': 'saveSharedAnswer',
      'POST /api/v1/share/{shareToken}/submit': 'submitSharedAnswers',
      'GET /q/{shareToken}': 'getSharePage',
      'GET /dashboard': 'getDashboard',
      'GET /api/v1/sites/{siteId}/feedback': 'listSiteFeedback',
    });
    const create = doc.paths['/api/v1/export/questions'].post;
    expect(Object.keys(create.responses)).toEqual(expect.arrayContaining(['201', '400', '401', '413', '429']));
    expect(doc.paths['/api/v1/export/questions/{id}/link'].get.responses['409'].description).toContain('BATCH_NOT_SENT');
  });

  it('serves the dashboard page with a strict CSP, and its owner feedback routes (JWT) for browsing and triage', async () => {
    const page = await t.http.get('/dashboard').expect(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    // PUBLIC_BASE_URL is unset: it follows the configured listener (HOST 127.0.0.1, TODO_API_PORT's default).
    expect(page.headers['content-security-policy']).toMatch(/connect-src 'self' http:\/\/127\.0\.0\.1:3000;/);
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    expect(page.text).toContain('data-auth-base="http://127.0.0.1:3000"');
    expect((await t.http.get('/assets/dashboard.js').expect(200)).headers['content-type']).toMatch(/javascript/);

    const [id] = await t.app.get(FeedbackRepository).insertMany(undefined, owner.id, [{ siteId: site.id, type: 'bug', message: 'Broken link', rating: null, pageUrl: 'https://x.test/' }]);
    const path = `/api/v1/sites/${site.id}/feedback`;
    const list = (await t.http.get(path).query({ limit: '200' }).set(bearer(owner.jwt)).expect(200)).body.data;
    expect(list.feedback.map((f: { id: string }) => f.id)).toContain(id);
    expect(list).toEqual({ feedback: expect.any(Array), nextCursor: expect.any(String), hasMore: false });
    expect((await t.http.get(path).set(bearer(stranger.jwt)).expect(404)).body.error.code).toBe('NOT_FOUND');
    expect((await t.http.get(path).expect(401)).body.error.code).toBe('AUTH_REQUIRED');
    expect((await t.http.get(path).query({ limit: '0' }).set(bearer(owner.jwt)).expect(400)).body.error.code).toBe('VALIDATION_ERROR');

    const updated = await t.http.put(`${path}/${id}`).set(bearer(owner.jwt)).send({ status: 'resolved' }).expect(200);
    expect(updated.body.data.feedback).toMatchObject({ id, status: 'resolved' });
    expect((await t.http.put(`${path}/${id}`).set(bearer(owner.jwt)).send({ status: 'new' }).expect(400)).body.error.code).toBe('VALIDATION_ERROR');
    expect((await t.http.put(`${path}/${id}`).set(bearer(stranger.jwt)).send({ status: 'triaged' }).expect(404)).body.error.code).toBe('NOT_FOUND');
    expect((await t.http.put(`/api/v1/sites/${otherSite.id}/feedback/${id}`).set(bearer(owner.jwt)).send({ status: 'triaged' }).expect(404)).body.error.code).toBe('NOT_FOUND');
  });
});
