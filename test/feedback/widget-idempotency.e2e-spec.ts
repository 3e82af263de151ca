/**
 * Idempotent widget writes: POST /api/v1/widget/feedback honours Idempotency-Key with the todos'
 * mechanism, keys scoped per site. A retried submission stores one row and replays the first
 * answer; the same key with another body is refused; without a key nothing changes.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startWithDatabase, type TestApp } from '../support/test-apps.js';
import { createOwner, createSite, type TestOwner, type TestSite } from './feedback-fixtures.js';

const SUBMIT = '/api/v1/widget/feedback';

describe('widget submissions with Idempotency-Key', () => {
  let t: TestApp;
  let owner: TestOwner;
  let site: TestSite;
  let otherSite: TestSite;

  beforeAll(async () => {
    t = await startWithDatabase('feedback-export');
    owner = await createOwner(t);
    site = await createSite(t, owner, 'Idempotent widget');
    otherSite = await createSite(t, owner, 'Other widget');
  });
  afterAll(async () => {
    await t?.close();
  });

  const body = (message: string, siteKey = site.siteKey) => ({ siteKey, type: 'bug', message, rating: 4, pageUrl: 'https://shop.example.org/cart' });
  const rowsWith = async (message: string): Promise<string[]> =>
    (await t.dataSource.query('SELECT id FROM feedback WHERE message = $1', [message])).map((row: { id: string }) => row.id);

  it('stores a retried submission once and replays its answer with Idempotent-Replayed: true', async () => {
    const key = randomUUID();
    const first = await t.http.post(SUBMIT).set('Idempotency-Key', key).send(body('retried once')).expect(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const retry = await t.http.post(SUBMIT).set('Idempotency-Key', key).send(body('retried once')).expect(201);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.body).toEqual(first.body);
    expect(first.body).toEqual({ success: true, data: { id: expect.stringMatching(/^[0-9a-f-]{36}$/) } });
    expect(await rowsWith('retried once')).toEqual([first.body.data.id]);
  });

  it('refuses the same key with another body as todos do (422 IDEMPOTENCY_KEY_REUSED) and stores nothing', async () => {
    const key = randomUUID();
    await t.http.post(SUBMIT).set('Idempotency-Key', key).send(body('first body')).expect(201);
    const reused = await t.http.post(SUBMIT).set('Idempotency-Key', key).send(body('second body')).expect(422);
    expect(reused.body).toEqual({ success: false, error: { code: 'IDEMPOTENCY_KEY_REUSED', message: expect.any(String) } });
    expect(await rowsWith('second body')).toEqual([]);
    expect(await rowsWith('first body')).toHaveLength(1);
  });

  it('scopes keys per site: one key on two sites stores two rows', async () => {
    const key = randomUUID();
    const a = await t.http.post(SUBMIT).set('Idempotency-Key', key).send(body('per site', site.siteKey)).expect(201);
    const b = await t.http.post(SUBMIT).set('Idempotency-Key', key).send(body('per site', otherSite.siteKey)).expect(201);
    expect(b.headers['idempotent-replayed']).toBeUndefined();
    expect(b.body.data.id).not.toBe(a.body.data.id);
    expect((await rowsWith('per site')).sort()).toEqual([a.body.data.id, b.body.data.id].sort());
  });

  it('stores one row for simultaneous requests with one key', async () => {
    const key = randomUUID();
    const answers = await Promise.all(Array.from({ length: 4 }, () => t.http.post(SUBMIT).set('Idempotency-Key', key).send(body('simultaneous'))));
    expect(answers.map((res) => res.status)).toEqual([201, 201, 201, 201]);
    const ids = new Set(answers.map((res) => res.body.data.id));
    expect(ids.size).toBe(1);
    expect(await rowsWith('simultaneous')).toEqual([...ids]);
    expect(answers.filter((res) => res.headers['idempotent-replayed'] === 'true')).toHaveLength(3);
  });

  it('without a key behaves as before: every request stores a row', async () => {
    const first = await t.http.post(SUBMIT).send(body('no key')).expect(201);
    const second = await t.http.post(SUBMIT).send(body('no key')).expect(201);
    expect(second.headers['idempotent-replayed']).toBeUndefined();
    expect((await rowsWith('no key')).sort()).toEqual([first.body.data.id, second.body.data.id].sort());
  });

  it('refuses a malformed key with 400', async () => {
    const res = await t.http.post(SUBMIT).set('Idempotency-Key', 'has spaces in it').send(body('bad key')).expect(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(await rowsWith('bad key')).toEqual([]);
  });

  it('ships a widget script that sends one key per submission and reuses it when the same submission is sent again', async () => {
    const script = (await t.http.get('/widget.js').expect(200)).text;
    expect(script).toContain("'Idempotency-Key'");
    expect(script).toContain('randomUUID');
  });
});
