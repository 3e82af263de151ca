import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { insertUser } from '#libs/testing';
import { insertApiKey } from '../support/api-keys.js';
import { grantBetaAccess } from '../support/api-access.js';
import { bearer, createOwner, createSite, resetRateLimits, type TestSite } from '../feedback/feedback-fixtures.js';
import { sampleQuestions } from '../questions/questions-fixtures.js';
import { startWithDatabase, type TestApp } from '../support/test-apps.js';

/**
 * One rule source: a tool that takes what a REST route takes refuses bad input in REST's words.
 * Each case is sent to the route and to the tool, and the answers' code, message and fields must
 * be the same.
 */
type ToolResult = { isError?: boolean; content: Array<{ type: string; text: string }> };

const clients: Client[] = [];
async function connect(url: string, token: string): Promise<Client> {
  const client = new Client({ name: 'mcp-validation-words', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: bearer(token) } }));
  clients.push(client);
  return client;
}

/** The error body of a failed tool call (its text block's second line). */
async function toolError(client: Client, name: string, args: Record<string, unknown>): Promise<unknown> {
  const result = (await client.request({ method: 'tools/call', params: { name, arguments: args } }, CallToolResultSchema)) as ToolResult;
  expect([name, result.isError]).toEqual([name, true]);
  return JSON.parse(result.content[0].text.split('\n')[1]).error;
}

afterAll(async () => {
  for (const client of clients) await client.close().catch(() => undefined);
});

describe('todo tools refuse bad input in the REST routes’ words', () => {
  let t: TestApp;
  let key: string;

  beforeAll(async () => {
    t = await startWithDatabase('todo-api');
    const user = await insertUser(t.dataSource);
    await grantBetaAccess(t.dataSource, user.id);
    key = (await insertApiKey(t.dataSource, user.id)).key;
  });
  afterAll(async () => {
    await t?.close();
  });

  it('create_todo, update_todo and list_todos say what POST, PUT and GET /api/v1/todos say', async () => {
    const client = await connect(`${t.baseUrl}/api/v1/mcp`, key);
    const valid = { text: 'ok', priority: 2, category: 'words' };
    const creates: object[] = [
      { priority: 2, category: 'words' },
      { ...valid, text: '' },
      { ...valid, text: 'x'.repeat(5001) },
      { ...valid, priority: 9 },
      { ...valid, priority: 'high' },
      { ...valid, priority: 1.5 },
      { ...valid, category: 'x'.repeat(101) },
      { ...valid, estimatedDurationMinutes: -1 },
    ];
    for (const body of creates) {
      const rest = (await t.http.post('/api/v1/todos').set(bearer(key)).send(body).expect(400)).body.error;
      expect([body, await toolError(client, 'create_todo', body as Record<string, unknown>)]).toEqual([body, rest]);
    }
    for (const [query, args] of [
      ['limit=0', { limit: 0 }],
      ['limit=501', { limit: 501 }],
      ['priority=5', { priority: 5 }],
      ['sort=text', { sort: 'text' }],
      [`category=${'x'.repeat(101)}`, { category: 'x'.repeat(101) }],
    ] as const) {
      const rest = (await t.http.get(`/api/v1/todos?${query}`).set(bearer(key)).expect(400)).body.error;
      expect([query, await toolError(client, 'list_todos', args)]).toEqual([query, rest]);
    }
    const id = (await t.http.post('/api/v1/todos').set(bearer(key)).send(valid).expect(201)).body.data.todo.id;
    for (const body of [{ text: '' }, { priority: 0 }, { category: '' }, { text: 5 }]) {
      const rest = (await t.http.put(`/api/v1/todos/${id}`).set(bearer(key)).send(body).expect(400)).body.error;
      expect([body, await toolError(client, 'update_todo', { id, ...body })]).toEqual([body, rest]);
    }
  });
});

/** One feedback-export app (and database) for both of its describes; each makes its own owner and site. */
let feedbackApp: Promise<TestApp> | undefined;
const feedbackExport = () => (feedbackApp ??= startWithDatabase('feedback-export'));
afterAll(async () => {
  await (await feedbackApp?.catch(() => undefined))?.close();
});

describe('question-batch tools refuse bad input in the REST routes’ words', () => {
  let t: TestApp;
  let site: TestSite;

  beforeAll(async () => {
    t = await feedbackExport();
    site = await createSite(t, await createOwner(t), 'Words');
  });

  it('create_question_batch and update_question_batch say what POST and PATCH /api/v1/export/questions say', async () => {
    const client = await connect(`${t.baseUrl}/api/v1/mcp`, site.writeToken);
    const q = sampleQuestions(1)[0];
    const creates: object[] = [
      { questions: [q] },
      { title: 'x'.repeat(201), questions: [q] },
      { title: '   ', questions: [q] },
      { title: 'ok', questions: [] },
      { title: 'ok', questions: [{ ...q, n: 0 }] },
      { title: 'ok', questions: [{ ...q, title: '' }] },
      { title: 'ok', questions: [q], notifyEmail: 'not-an-email' },
      { title: 'ok', questions: [q, { ...q, title: 'dup' }] },
    ];
    for (const body of creates) {
      const rest = (await t.http.post('/api/v1/export/questions').set(bearer(site.writeToken)).send(body).expect(400)).body.error;
      expect([body, await toolError(client, 'create_question_batch', body as Record<string, unknown>)]).toEqual([body, rest]);
    }
    const id = (await t.http.post('/api/v1/export/questions').set(bearer(site.writeToken)).send({ title: 'Draft', questions: [q] }).expect(201)).body.data.id;
    for (const body of [{ title: '' }, { title: null }, { questions: [] }, { questions: [{ ...q, html: 'x'.repeat(20_001) }] }, { notifyEmail: 'nope' }]) {
      const rest = (await t.http.patch(`/api/v1/export/questions/${id}`).set(bearer(site.writeToken)).send(body).expect(400)).body.error;
      expect([body, await toolError(client, 'update_question_batch', { id, ...body })]).toEqual([body, rest]);
    }
    await resetRateLimits(t);
  });
});

describe('feedback tools refuse bad input in the REST routes’ words', () => {
  let t: TestApp;
  let site: TestSite;
  let portfolioToken: string;

  beforeAll(async () => {
    t = await feedbackExport();
    const owner = await createOwner(t);
    portfolioToken = owner.portfolioToken;
    site = await createSite(t, owner, 'Words');
  });

  it('list_feedback, list_portfolio_feedback and update_feedback_status say what the export routes say', async () => {
    const siteClient = await connect(`${t.baseUrl}/api/v1/mcp`, site.writeToken);
    const portfolioClient = await connect(`${t.baseUrl}/api/v1/mcp`, portfolioToken);
    for (const [query, args] of [
      ['limit=0', { limit: 0 }],
      ['limit=201', { limit: 201 }],
      ['limit=abc', { limit: 'abc' }],
      ['type=praise', { type: 'praise' }],
      ['status=done', { status: 'done' }],
      [`since=${'x'.repeat(1001)}`, { since: 'x'.repeat(1001) }],
    ] as const) {
      const rest = (await t.http.get(`/api/v1/export/feedback?${query}`).set(bearer(site.writeToken)).expect(400)).body.error;
      expect([query, await toolError(siteClient, 'list_feedback', args)]).toEqual([query, rest]);
      const portfolio = (await t.http.get(`/api/v1/export/portfolio/feedback?${query}`).set(bearer(portfolioToken)).expect(400)).body.error;
      expect([query, await toolError(portfolioClient, 'list_portfolio_feedback', args)]).toEqual([query, portfolio]);
    }
    const id = '00000000-0000-4000-8000-000000000000';
    for (const body of [{}, { status: 'new' }, { status: 5 }]) {
      const rest = (await t.http.put(`/api/v1/export/feedback/${id}`).set(bearer(site.writeToken)).send(body).expect(400)).body.error;
      expect([body, await toolError(siteClient, 'update_feedback_status', { id, ...body })]).toEqual([body, rest]);
    }
    await resetRateLimits(t);
  });
});
