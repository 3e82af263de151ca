import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { HTML_POLICY_VERSION, MAX_HTML_NESTING } from '../../apps/feedback-export/src/questions/html-policy.js';
import { fastestOf } from '#libs/testing';
import { startWithDatabase, type TestApp } from '../support/test-apps.js';
import { bearer, createOwner, createSite, sampleQuestions, tokenOfUrl, type TestOwner, type TestSite } from './questions-fixtures.js';

/**
 * Issue 27 (3): question and intro HTML is sanitised once, when stored, and every view serves the
 * stored result; the work one request can ask of the sanitiser is bounded (nesting, the batch's
 * characters and elements, refused before sanitising), and the preview, which sanitises on request,
 * has a budget per owner.
 */
describe('question HTML: sanitised once at write time, bounded per request', () => {
  let t: TestApp;
  let owner: TestOwner;
  let site: TestSite;

  beforeAll(async () => {
    t = await startWithDatabase('feedback-export', { FEEDBACK_PUBLIC_BASE_URL: 'https://feedback.example.test' });
    owner = await createOwner(t);
    site = await createSite(t, owner, 'Main');
  });
  afterAll(async () => {
    await t?.close();
  });

  const create = (body: object) => t.http.post('/api/v1/export/questions').set(bearer(site.writeToken)).send(body);
  const nested = (depth: number, tag = 'b') => `${`<${tag}>`.repeat(depth)}x${`</${tag}>`.repeat(depth)}`;

  async function sentBatch(introHtml: string, html: string): Promise<{ id: string; token: string }> {
    const res = await create({ title: 'Stored HTML', introHtml, sendNow: true, questions: [{ n: 1, title: 'One', html }] }).expect(201);
    return { id: res.body.data.id, token: tokenOfUrl(res.body.data.shareUrl) };
  }
  const stored = async (id: string) =>
    (
      await t.dataSource.query(
        `SELECT b.intro_html AS "introHtml", b.html_policy_version AS "version", q.html FROM question_batches b JOIN batch_questions q ON q.batch_id = b.id WHERE b.id = $1`,
        [id],
      )
    )[0] as { introHtml: string; version: number; html: string };

  /** Every way a batch's HTML is read: the share API and page, the owner's and the token's detail. */
  async function everyView(id: string, token: string): Promise<Array<{ introHtml: string; html: string } | string>> {
    const share = (await t.http.get(`/api/v1/share/${token}`).expect(200)).body.data.batch;
    const page = (await t.http.get(`/q/${token}`).expect(200)).text;
    const ownerView = (await t.http.get(`/api/v1/sites/${site.id}/questions/${id}`).set(bearer(owner.jwt)).expect(200)).body.data.batch;
    const tokenView = (await t.http.get(`/api/v1/export/questions/${id}`).set(bearer(site.readToken)).expect(200)).body.data.batch;
    return [
      { introHtml: share.introHtml, html: share.questions[0].html },
      { introHtml: ownerView.introHtml, html: ownerView.questions[0].html },
      { introHtml: tokenView.introHtml, html: tokenView.questions[0].html },
      page,
    ];
  }

  it('sanitises when a batch is stored and records the policy it was sanitised under', async () => {
    const { id } = await sentBatch('<p onclick="x()">Intro</p><script>alert(1)</script>', '<img src=x onerror=alert(1)><a href="javascript:alert(1)">js</a><em>kept</em>');
    expect(await stored(id)).toEqual({
      introHtml: '<p>Intro</p>',
      html: '<a rel="noopener noreferrer nofollow" target="_blank">js</a><em>kept</em>',
      version: HTML_POLICY_VERSION,
    });
  });

  it('serves the stored HTML as stored on every view: nothing sanitises it again', async () => {
    const { id, token } = await sentBatch('<p>Intro</p>', '<p>Body</p>');
    // A marker the sanitiser would strip: if any view ran it again, the marker would be gone.
    const marked = { introHtml: '<p data-stored="as-is">Intro</p>', html: '<section data-stored="as-is">Body</section>' };
    await t.dataSource.query(`UPDATE question_batches SET intro_html = $2 WHERE id = $1`, [id, marked.introHtml]);
    await t.dataSource.query(`UPDATE batch_questions SET html = $2 WHERE batch_id = $1`, [id, marked.html]);
    const [share, ownerView, tokenView, page] = await everyView(id, token);
    expect([share, ownerView, tokenView]).toEqual([marked, marked, marked]);
    expect(page).toContain(marked.introHtml);
    expect(page).toContain(marked.html);
  });

  it('sanitises a batch stored before policy versions once, on its first read, and stores the result for later views', async () => {
    const { id, token } = await sentBatch('<p>Intro</p>', '<p>Body</p>');
    await t.dataSource.query(`UPDATE question_batches SET intro_html = $2, html_policy_version = 0 WHERE id = $1`, [id, '<p onclick="x()">Old intro</p><script>alert(1)</script>']);
    await t.dataSource.query(`UPDATE batch_questions SET html = $2 WHERE batch_id = $1`, [id, '<iframe src="https://evil.example"></iframe><p>Old body</p>']);
    const clean = { introHtml: '<p>Old intro</p>', html: '<p>Old body</p>' };
    expect((await everyView(id, token)).slice(0, 3)).toEqual([clean, clean, clean]);
    expect(await stored(id)).toEqual({ ...clean, version: HTML_POLICY_VERSION });
  });

  it(`refuses HTML nested deeper than ${MAX_HTML_NESTING} levels (400 VALIDATION_ERROR naming the field); ${MAX_HTML_NESTING} levels are fine`, async () => {
    await create({ title: 'Deep enough', introHtml: nested(MAX_HTML_NESTING, 'blockquote'), questions: [{ n: 1, title: 'One', html: nested(MAX_HTML_NESTING) }] }).expect(201);
    const refused = await create({ title: 'Too deep', questions: [...sampleQuestions(2), { n: 3, title: 'Deep', html: nested(MAX_HTML_NESTING + 1, 'em') }] }).expect(400);
    expect(refused.body.error).toMatchObject({
      code: 'VALIDATION_ERROR',
      details: { fields: [{ field: 'questions.2.html', messages: [`questions.2.html nests elements deeper than ${MAX_HTML_NESTING} levels`] }] },
    });
    // Unclosed tags nest: the sanitiser's parser would build them 30 deep.
    const unclosed = await create({ title: 'Unclosed', introHtml: '<i>'.repeat(30), questions: sampleQuestions(1) }).expect(400);
    expect(unclosed.body.error.details.fields.map((f: { field: string }) => f.field)).toEqual(['introHtml']);
  });

  it('refuses the attack batch (1 MiB of nested tags) with 400 at once, without sanitising it', async () => {
    // 48 questions of 20,000 characters of unclosed tags: about 940 KiB, under the 1 MiB body limit.
    const questions = Array.from({ length: 48 }, (_, i) => ({ n: i + 1, title: `Q${i + 1}`, html: '<b>'.repeat(6666) }));
    const { ms: used, result: refused } = await fastestOf(() => create({ title: 'Heavy', questions }).expect(400), 400, 3, 'cpu');
    expect(refused.body.error.code).toBe('VALIDATION_ERROR');
    expect(refused.body.error.details.fields.map((f: { field: string }) => f.field)).toEqual([...questions.map((_, i) => `questions.${i}.html`), 'questions']);
    // Sanitising it took over a second of CPU; the refusal (client included) takes a small part of that.
    expect(used).toBeLessThan(400);
  });

  it("refuses a batch whose HTML together is too long or has too many elements, and a field the sanitiser makes longer than 20,000 characters", async () => {
    const long = await create({ title: 'Long', questions: Array.from({ length: 6 }, (_, i) => ({ n: i + 1, title: `Q${i}`, html: 'x'.repeat(20_000) })) }).expect(400);
    expect(long.body.error.details.fields).toEqual([{ field: 'questions', messages: [expect.stringContaining('120,000 characters; at most 100,000')] }]);
    const busy = await create({ title: 'Busy', questions: Array.from({ length: 2 }, (_, i) => ({ n: i + 1, title: `Q${i}`, html: '<br>'.repeat(2_501) })) }).expect(400);
    expect(busy.body.error.details.fields).toEqual([{ field: 'questions', messages: [expect.stringContaining('5,002 elements; at most 5,000')] }]);
    // 1,500 empty links are 10,500 characters; each gains rel and target when sanitised.
    const grown = await create({ title: 'Links', questions: [...sampleQuestions(1), { n: 2, title: 'Links', html: '<a></a>'.repeat(1_500) }] }).expect(400);
    expect(grown.body.error.details.fields).toEqual([{ field: 'questions.1.html', messages: [expect.stringMatching(/^questions\.1\.html is [\d,]+ characters once sanitised .* at most 20,000 are allowed$/)] }]);
    expect((await t.dataSource.query(`SELECT count(*)::int AS n FROM question_batches WHERE title IN ('Long', 'Busy', 'Links')`))[0].n).toBe(0);
  });

  it('applies the same limits to the preview and to the MCP tool', async () => {
    const preview = await t.http
      .post(`/api/v1/sites/${site.id}/questions/preview`)
      .set(bearer(owner.jwt))
      .send({ questions: [{ n: 1, title: 'Deep', html: nested(MAX_HTML_NESTING + 1) }] })
      .expect(400);
    expect(preview.body.error.details.fields.map((f: { field: string }) => f.field)).toEqual(['questions.0.html']);

    const client = new Client({ name: 'stored-html-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${t.baseUrl}/api/v1/mcp`), { requestInit: { headers: bearer(site.writeToken) } }));
    try {
      const result = (await client.callTool({ name: 'create_question_batch', arguments: { title: 'Deep via MCP', questions: [{ n: 1, title: 'Deep', html: nested(MAX_HTML_NESTING + 1) }] } })) as {
        isError?: boolean;
        content: Array<{ text: string }>;
      };
      expect(result.isError).toBe(true);
      expect(result.content[0].text).toContain(`nests elements deeper than ${MAX_HTML_NESTING} levels`);
    } finally {
      await client.close();
    }
  });

  it('limits the preview to 20 a minute per owner: then 429 RATE_LIMITED with Retry-After; another owner is unaffected', async () => {
    const busy = await createOwner(t);
    const busySite = await createSite(t, busy, 'Busy');
    const preview = (who: TestOwner, siteId: string) => t.http.post(`/api/v1/sites/${siteId}/questions/preview`).set(bearer(who.jwt)).send({ questions: sampleQuestions(1) });
    const statuses: number[] = [];
    for (let i = 0; i < 21; i++) statuses.push((await preview(busy, busySite.id)).status);
    expect(statuses).toEqual([...Array(20).fill(200), 429]);
    const refused = await preview(busy, busySite.id).expect(429);
    expect(refused.body.error.code).toBe('RATE_LIMITED');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.headers['ratelimit-limit']).toBe('20');
    await preview(owner, site.id).expect(200);
  });
});
