import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { TestApp } from '../support/test-apps.js';
import { resetRateLimits } from '../feedback/feedback-fixtures.js';
import { bearer, createSite, sampleQuestions, startQuestionsApp, tokenOfUrl, type QuestionsApp, type TestOwner, type TestSite } from './questions-fixtures.js';

const QUOTA_BYTES = 64 * 1024;

/** A draft's life through the write token: edit (PATCH), delete, send; each refused once the batch is sent. */
describe('question-batch drafts: PATCH, DELETE and send with the write token', () => {
  let questions: QuestionsApp;
  let t: TestApp;
  let owner: TestOwner;
  let site: TestSite;
  let otherSite: TestSite;

  beforeAll(async () => {
    // The smallest byte quota a site may have (64 KiB), for the quota case; the other cases stay far below it.
    questions = await startQuestionsApp({ FEEDBACK_MAX_BATCH_BYTES_PER_SITE: String(QUOTA_BYTES) });
    ({ t, owner, site } = questions);
    otherSite = await createSite(t, owner, 'Other site');
  });
  afterAll(async () => {
    await questions?.close();
  });

  const path = (id: string) => `/api/v1/export/questions/${id}`;
  const draft = async (body: object = { title: 'Draft', questions: sampleQuestions(2) }): Promise<string> =>
    (await t.http.post('/api/v1/export/questions').set(bearer(site.writeToken)).send(body).expect(201)).body.data.id;
  const detail = async (id: string) => (await t.http.get(path(id)).set(bearer(site.readToken)).expect(200)).body.data.batch;

  it('edits a draft: given fields replace the stored ones, sanitised; null clears the intro and puts back the owner’s e-mail', async () => {
    const id = await draft({ title: 'Before', introHtml: '<p>Intro</p>', notifyEmail: 'pm@example.test', questions: sampleQuestions(3) });
    const ownerEmail = (await t.dataSource.query(`SELECT email FROM users WHERE id = $1`, [owner.id]))[0].email;

    const titled = await t.http.patch(path(id)).set(bearer(site.writeToken)).send({ title: '  After  ' }).expect(200);
    expect(titled.body.data.batch).toMatchObject({ id, title: 'After', status: 'draft', introHtml: '<p>Intro</p>', notifyEmail: 'pm@example.test', questionCount: 3 });

    const replaced = await t.http
      .patch(path(id))
      .set(bearer(site.writeToken))
      .send({ introHtml: null, notifyEmail: null, questions: [{ n: 5, title: 'Only', html: '<p onclick="x()">one<script>alert(1)</script></p>' }] })
      .expect(200);
    expect(replaced.body.data.batch).toMatchObject({ title: 'After', introHtml: '', notifyEmail: ownerEmail, questionCount: 1, questions: [{ n: 5, title: 'Only', html: '<p>one</p>', answer: null }] });
    expect(await detail(id)).toEqual(replaced.body.data.batch);
  });

  it('validates an edit exactly like a create (same rules, same words), and changes nothing when refused', async () => {
    const id = await draft();
    const before = await detail(id);
    const q = sampleQuestions(1)[0];
    const bad: object[] = [
      { title: '' },
      { title: '   ' },
      { title: null },
      { title: 'x'.repeat(201) },
      { questions: [] },
      { questions: null },
      { questions: Array.from({ length: 101 }, (_, i) => ({ ...q, n: i + 1 })) },
      { questions: [q, { ...q, title: 'dup' }] },
      { questions: [{ ...q, n: 0 }] },
      { questions: [{ ...q, html: 'x'.repeat(20_001) }] },
      { introHtml: 'x'.repeat(20_001) },
      { notifyEmail: 'not-an-email' },
      { sendNow: true },
      { unknown: 1 },
    ];
    for (const body of bad) {
      const edit = await t.http.patch(path(id)).set(bearer(site.writeToken)).send(body);
      const label = JSON.stringify(body).slice(0, 60);
      expect([label, edit.status, edit.body.error?.code]).toEqual([label, 400, 'VALIDATION_ERROR']);
      const asCreate = { title: 'ok', questions: [q], ...body };
      // A create takes sendNow, says "required" of a null it needs, and names its own known properties.
      if (['sendNow', 'unknown'].some((key) => key in body) || Object.values(body).includes(null)) continue;
      const create = await t.http.post('/api/v1/export/questions').set(bearer(site.writeToken)).send(asCreate);
      expect([label, create.status, create.body.error?.details]).toEqual([label, 400, edit.body.error.details]);
    }
    expect(await detail(id)).toEqual(before);
    await resetRateLimits(t);
  });

  it('sends a draft: 200 with the live link, then 409 BATCH_ALREADY_SENT; edit and delete of a sent batch are 409 and change nothing', async () => {
    const id = await draft();
    const sent = await t.http.post(`${path(id)}/send`).set(bearer(site.writeToken)).expect(200);
    expect(sent.body).toEqual({ success: true, data: { id, status: 'sent', shareUrl: expect.stringMatching(/^https:\/\/feedback\.example\.test\/q\/[A-Za-z0-9_-]{43}$/) } });
    await t.http.get(`/api/v1/share/${tokenOfUrl(sent.body.data.shareUrl)}`).expect(200);
    expect((await t.http.get(`${path(id)}/link`).set(bearer(site.writeToken)).expect(200)).body.data.shareUrl).toBe(sent.body.data.shareUrl);

    const again = await t.http.post(`${path(id)}/send`).set(bearer(site.writeToken)).expect(409);
    expect(again.body).toEqual({ success: false, error: { code: 'BATCH_ALREADY_SENT', message: expect.stringContaining('only a draft') } });
    const before = await detail(id);
    expect((await t.http.patch(path(id)).set(bearer(site.writeToken)).send({ title: 'Too late' }).expect(409)).body.error.code).toBe('BATCH_ALREADY_SENT');
    expect((await t.http.delete(path(id)).set(bearer(site.writeToken)).expect(409)).body.error.code).toBe('BATCH_ALREADY_SENT');
    expect(await detail(id)).toEqual(before);
  });

  it('deletes a draft with its questions; a second delete is 404', async () => {
    const id = await draft();
    expect((await t.http.delete(path(id)).set(bearer(site.writeToken)).expect(200)).body).toEqual({ success: true, data: { id, deleted: true } });
    expect((await t.http.get(path(id)).set(bearer(site.readToken)).expect(404)).body.error.code).toBe('NOT_FOUND');
    expect((await t.dataSource.query(`SELECT count(*)::int AS n FROM batch_questions WHERE batch_id = $1`, [id]))[0].n).toBe(0);
    expect((await t.http.delete(path(id)).set(bearer(site.writeToken)).expect(404)).body.error.code).toBe('NOT_FOUND');
  });

  it('refuses the read token, the portfolio token, the owner’s JWT and no token (401 INVALID_TOKEN), and another site’s batch (404)', async () => {
    const id = await draft();
    for (const token of [site.readToken, owner.portfolioToken, owner.jwt, undefined]) {
      const auth = token ? bearer(token) : {};
      for (const res of [
        await t.http.patch(path(id)).set(auth).send({ title: 'No' }),
        await t.http.delete(path(id)).set(auth),
        await t.http.post(`${path(id)}/send`).set(auth),
      ]) {
        expect([res.status, res.body.error?.code]).toEqual([401, 'INVALID_TOKEN']);
      }
    }
    for (const res of [
      await t.http.patch(path(id)).set(bearer(otherSite.writeToken)).send({ title: 'No' }),
      await t.http.delete(path(id)).set(bearer(otherSite.writeToken)),
      await t.http.post(`${path(id)}/send`).set(bearer(otherSite.writeToken)),
    ]) {
      expect([res.status, res.body.error?.code]).toEqual([404, 'NOT_FOUND']);
    }
    expect(await detail(id)).toMatchObject({ title: 'Draft', status: 'draft' });
    expect((await t.http.patch(path('not-a-uuid')).set(bearer(site.writeToken)).send({ title: 'x' }).expect(400)).body.error.code).toBe('VALIDATION_ERROR');
    await resetRateLimits(t);
  });

  it('counts an edit against the site’s stored bytes without the draft’s old text', async () => {
    const quotaSite = await createSite(t, owner, 'Quota site');
    const questionsOf = (count: number, letter: string) => Array.from({ length: count }, (_, i) => ({ n: i + 1, title: 'q', html: letter.repeat(20_000) }));
    const id = (await t.http.post('/api/v1/export/questions').set(bearer(quotaSite.writeToken)).send({ title: 'Big', questions: questionsOf(3, 'x') }).expect(201)).body.data.id;
    // As large again: fine, its old text no longer counts (both together would be over the quota).
    await t.http.patch(path(id)).set(bearer(quotaSite.writeToken)).send({ questions: questionsOf(3, 'y') }).expect(200);
    const over = await t.http.patch(path(id)).set(bearer(quotaSite.writeToken)).send({ questions: questionsOf(4, 'z') }).expect(403);
    expect(over.body.error).toMatchObject({ code: 'QUOTA_EXCEEDED', details: { quota: 'batchBytesPerSite', limit: QUOTA_BYTES } });
    expect((await t.http.get(path(id)).set(bearer(quotaSite.readToken)).expect(200)).body.data.batch.questions[0].html).toBe('y'.repeat(20_000));
  });
});
