import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startWithDatabase, type TestApp } from '../support/test-apps.js';
import { bearer, createOwner, createSite, sampleQuestions, tokenOfUrl, type TestOwner, type TestSite } from './questions-fixtures.js';

type ToolResult = { isError?: boolean; structuredContent?: any; content: Array<{ type: string; text: string }> };

describe('question-batch tools of the feedback MCP server', () => {
  let t: TestApp;
  let owner: TestOwner;
  let site: TestSite;
  let otherSite: TestSite;
  const clients: Client[] = [];

  beforeAll(async () => {
    t = await startWithDatabase('feedback-export');
    owner = await createOwner(t);
    site = await createSite(t, owner, 'Main');
    otherSite = await createSite(t, owner, 'Other');
  });
  afterAll(async () => {
    for (const client of clients) await client.close().catch(() => undefined);
    await t?.close();
  });

  async function connect(token: string): Promise<Client> {
    const client = new Client({ name: 'questions-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${t.baseUrl}/api/v1/mcp`), { requestInit: { headers: bearer(token) } }));
    clients.push(client);
    return client;
  }
  const call = async (client: Client, name: string, args: Record<string, unknown> = {}) => (await client.callTool({ name, arguments: args })) as ToolResult;

  it('announces the four question tools with their read-only hints (to a write token; a read token sees the two reading ones)', async () => {
    const { tools } = await (await connect(site.writeToken)).listTools();
    const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool]));
    for (const name of ['list_question_batches', 'get_question_batch', 'create_question_batch', 'get_share_link', 'update_question_batch', 'delete_question_batch', 'send_question_batch']) {
      expect([name, byName[name]?.name]).toEqual([name, name]);
    }
    expect(byName.create_question_batch.annotations?.readOnlyHint).toBe(false);
    expect(byName.list_question_batches.annotations?.readOnlyHint).toBe(true);
    expect(byName.create_question_batch.inputSchema.properties).toHaveProperty('questions');
    const readable = (await (await connect(site.readToken)).listTools()).tools.map((tool) => tool.name);
    expect(readable.filter((name) => name.includes('question') || name.includes('share'))).toEqual(['get_question_batch', 'list_question_batches']);
  });

  it('write token: creates (draft and sent), lists without links, reads detail, fetches the link; same rules as REST', async () => {
    const client = await connect(site.writeToken);
    const draft = await call(client, 'create_question_batch', { title: 'Via MCP', questions: sampleQuestions(2) });
    expect(draft.isError).toBeFalsy();
    expect(draft.structuredContent).toEqual({ id: expect.any(String), status: 'draft' });
    expect(JSON.parse(draft.content[0].text)).toEqual(draft.structuredContent);
    const sent = await call(client, 'create_question_batch', { title: 'Sent via MCP', sendNow: true, questions: sampleQuestions(1) });
    expect(sent.structuredContent).toEqual({ id: expect.any(String), status: 'sent', shareUrl: expect.stringMatching(/\/q\/[A-Za-z0-9_-]{43}$/) });

    const list = await call(client, 'list_question_batches');
    expect(list.structuredContent.batches.map((b: { id: string }) => b.id)).toEqual([draft.structuredContent.id, sent.structuredContent.id]);
    expect(list.content[0].text).not.toContain('/q/');
    const rest = (await t.http.get('/api/v1/export/questions').set(bearer(site.writeToken)).expect(200)).body.data;
    expect(list.structuredContent).toEqual(rest);

    const link = await call(client, 'get_share_link', { id: sent.structuredContent.id });
    expect(link.structuredContent).toEqual({ shareUrl: sent.structuredContent.shareUrl });
    const notSent = await call(client, 'get_share_link', { id: draft.structuredContent.id });
    expect(notSent.isError).toBe(true);
    expect(notSent.content[0].text).toContain('BATCH_NOT_SENT');

    await t.http.put(`/api/v1/share/${tokenOfUrl(sent.structuredContent.shareUrl)}/answers/1`).send({ text: 'answered' }).expect(200);
    const detail = await call(client, 'get_question_batch', { id: sent.structuredContent.id });
    expect(detail.structuredContent.batch.questions[0].answer).toEqual({ text: 'answered', updatedAt: expect.any(String) });

    const duplicate = await call(client, 'create_question_batch', { title: 'Dup', questions: [sampleQuestions(1)[0], sampleQuestions(1)[0]] });
    expect(duplicate.isError).toBe(true);
    expect(duplicate.content[0].text).toContain('VALIDATION_ERROR');
    const tooMany = await call(client, 'create_question_batch', { title: 'Many', questions: Array.from({ length: 101 }, (_, i) => ({ n: i + 1, title: 't', html: '' })) });
    expect(tooMany.isError).toBe(true);
    const otherSites = await call(client, 'get_question_batch', { id: (await call(await connect(otherSite.writeToken), 'create_question_batch', { title: 'x', questions: sampleQuestions(1) })).structuredContent.id });
    expect(otherSites.isError).toBe(true);
    expect(otherSites.content[0].text).toContain('NOT_FOUND');
    const badId = await call(client, 'get_question_batch', { id: 'nope' });
    expect(badId.isError).toBe(true);
  });

  it('write token: edits, sends and deletes drafts through the REST service; a sent batch is BATCH_ALREADY_SENT, as REST answers 409', async () => {
    const client = await connect(site.writeToken);
    const created = (await call(client, 'create_question_batch', { title: 'Agent draft', questions: sampleQuestions(2) })).structuredContent;
    const edited = await call(client, 'update_question_batch', { id: created.id, title: 'Agent draft, edited', introHtml: '<p>Hi<script>x()</script></p>', questions: sampleQuestions(3) });
    expect(edited.isError).toBeFalsy();
    expect(edited.structuredContent.batch).toMatchObject({ id: created.id, title: 'Agent draft, edited', introHtml: '<p>Hi</p>', status: 'draft', questionCount: 3 });
    expect(edited.structuredContent).toEqual((await t.http.get(`/api/v1/export/questions/${created.id}`).set(bearer(site.readToken)).expect(200)).body.data);

    const sent = await call(client, 'send_question_batch', { id: created.id });
    expect(sent.structuredContent).toEqual({ id: created.id, status: 'sent', shareUrl: expect.stringMatching(/\/q\/[A-Za-z0-9_-]{43}$/) });
    await t.http.get(`/api/v1/share/${tokenOfUrl(sent.structuredContent.shareUrl)}`).expect(200);
    for (const [name, args] of [['send_question_batch', { id: created.id }], ['update_question_batch', { id: created.id, title: 'late' }], ['delete_question_batch', { id: created.id }]] as const) {
      const refused = await call(client, name, args);
      expect([name, refused.isError, refused.content[0].text.split(':')[0]]).toEqual([name, true, 'BATCH_ALREADY_SENT']);
    }

    const doomed = (await call(client, 'create_question_batch', { title: 'Duplicate draft', questions: sampleQuestions(1) })).structuredContent;
    expect((await call(client, 'delete_question_batch', { id: doomed.id })).structuredContent).toEqual({ id: doomed.id, deleted: true });
    await t.http.get(`/api/v1/export/questions/${doomed.id}`).set(bearer(site.readToken)).expect(404);
    expect((await call(client, 'delete_question_batch', { id: doomed.id })).content[0].text).toMatch(/^NOT_FOUND: /);

    const reader = await connect(site.readToken);
    for (const name of ['update_question_batch', 'delete_question_batch', 'send_question_batch']) {
      const refused = await call(reader, name, { id: created.id });
      expect([name, refused.isError, refused.content[0].text.split(':')[0]]).toEqual([name, true, 'INVALID_TOKEN']);
    }
  });

  it('read token: lists and reads, but cannot create or fetch links (INVALID_TOKEN); ok_ is refused on every question tool', async () => {
    const writer = await connect(site.writeToken);
    const sent = (await call(writer, 'create_question_batch', { title: 'Readable', sendNow: true, questions: sampleQuestions(1) })).structuredContent;
    const reader = await connect(site.readToken);
    expect((await call(reader, 'list_question_batches')).structuredContent.batches.map((b: { id: string }) => b.id)).toContain(sent.id);
    expect((await call(reader, 'get_question_batch', { id: sent.id })).structuredContent.batch.id).toBe(sent.id);
    const create = await call(reader, 'create_question_batch', { title: 'No', questions: sampleQuestions(1) });
    expect(create.isError).toBe(true);
    expect(create.content[0].text).toContain('INVALID_TOKEN');
    const link = await call(reader, 'get_share_link', { id: sent.id });
    expect(link.isError).toBe(true);
    expect(link.content[0].text).toContain('INVALID_TOKEN');
    const count = (await t.dataSource.query(`SELECT count(*)::int AS c FROM question_batches WHERE title = 'No'`))[0].c;
    expect(count).toBe(0);

    const portfolio = await connect(owner.portfolioToken);
    for (const [name, args] of [['list_question_batches', {}], ['get_question_batch', { id: sent.id }], ['get_share_link', { id: sent.id }]] as const) {
      const result = await call(portfolio, name, args);
      expect([name, result.isError, result.content[0].text.includes('INVALID_TOKEN')]).toEqual([name, true, true]);
    }
  });
});
