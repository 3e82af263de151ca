import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv-provider.js';
import { insertUser } from '#libs/testing';
import { insertApiKey } from '../support/api-keys.js';
import { bearer, createOwner, createSite, resetRateLimits, seedFeedback, type TestOwner, type TestSite } from '../feedback/feedback-fixtures.js';
import { sampleQuestions } from '../questions/questions-fixtures.js';
import { startWithDatabase, type TestApp } from '../support/test-apps.js';
import { grantBetaAccess } from '../support/api-access.js';

/**
 * What an agent can rely on from both MCP endpoints (the shared tool library): every tool
 * announces annotations and an outputSchema and answers structuredContent valid against it,
 * tools/list shows exactly what the credential may call in a stable order, list tools page
 * with a `cursor` argument, and a refusal names the REST code and the scope it needed.
 */
type ToolResult = { isError?: boolean; structuredContent?: Record<string, unknown>; content: Array<{ type: string; text: string }> };

const HINTS = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'];
const validator = new AjvJsonSchemaValidator();

async function connect(url: string, headers: Record<string, string>, clients: Client[]): Promise<Client> {
  const client = new Client({ name: 'mcp-tools-contract', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  clients.push(client);
  return client;
}

/** Calls a tool with the raw request (the SDK client would validate for us) and checks the answer against the announced outputSchema. */
async function callAndValidate(client: Client, tool: Tool, args: Record<string, unknown>): Promise<ToolResult> {
  const result = (await client.request({ method: 'tools/call', params: { name: tool.name, arguments: args } }, CallToolResultSchema)) as ToolResult;
  expect([tool.name, result.isError ?? false]).toEqual([tool.name, false]);
  expect([tool.name, result.structuredContent !== undefined]).toEqual([tool.name, true]);
  const check = validator.getValidator(tool.outputSchema as Record<string, unknown>)(result.structuredContent);
  expect([tool.name, check.valid, check.errorMessage]).toEqual([tool.name, true, undefined]);
  expect(JSON.parse(result.content[0].text)).toEqual(result.structuredContent);
  return result;
}

/**
 * What a strict client (the Inspector's schema lint) finds wrong in a schema: a property without a
 * description, a type written as a union array, zod's safe-integer bounds. Paths of each, none expected.
 */
function schemaNoise(schema: unknown, path: string): string[] {
  if (Array.isArray(schema)) return schema.flatMap((each, i) => schemaNoise(each, `${path}[${i}]`));
  if (typeof schema !== 'object' || schema === null) return [];
  const node = schema as Record<string, unknown>;
  const own = [
    ...(Array.isArray(node.type) ? [`${path}: type union ${JSON.stringify(node.type)}`] : []),
    ...(['minimum', 'maximum'] as const).filter((key) => Math.abs(Number(node[key])) === Number.MAX_SAFE_INTEGER).map((key) => `${path}: ${key} ${String(node[key])}`),
  ];
  const properties = (node.properties ?? {}) as Record<string, Record<string, unknown>>;
  const undescribed = Object.entries(properties)
    .filter(([, property]) => typeof property.description !== 'string' || property.description.length === 0)
    .map(([name]) => `${path}.${name}: no description`);
  const nested = Object.entries(node).flatMap(([key, value]) =>
    key === 'properties' ? Object.entries(value as object).flatMap(([name, each]) => schemaNoise(each, `${path}.${name}`)) : schemaNoise(value, `${path}/${key}`),
  );
  return [...own, ...undescribed, ...nested];
}

/**
 * Objects of an output schema that are open (no `additionalProperties: false`): an answer could carry a field
 * there that the schema never announces and the validator would let it through. Paths of each, none expected.
 */
function openObjects(schema: unknown, path: string): string[] {
  if (Array.isArray(schema)) return schema.flatMap((each, i) => openObjects(each, `${path}[${i}]`));
  if (typeof schema !== 'object' || schema === null) return [];
  const node = schema as Record<string, unknown>;
  const own = node.properties && node.additionalProperties !== false ? [path] : [];
  return [...own, ...Object.entries(node).flatMap(([key, value]) => openObjects(value, key === 'properties' ? path : `${path}/${key}`))];
}

function expectAgentGradeListing(tools: Tool[]): void {
  expect(tools.map((tool) => tool.name)).toEqual(tools.map((tool) => tool.name).sort());
  for (const tool of tools) {
    expect([tool.name, HINTS.filter((hint) => typeof (tool.annotations as Record<string, unknown> | undefined)?.[hint] !== 'boolean')]).toEqual([tool.name, []]);
    expect([tool.name, tool.outputSchema?.type]).toEqual([tool.name, 'object']);
    expect([tool.name, tool.inputSchema.additionalProperties]).toEqual([tool.name, false]);
    expect([tool.name, schemaNoise(tool.inputSchema, 'input'), schemaNoise(tool.outputSchema, 'output')]).toEqual([tool.name, [], []]);
    expect([tool.name, openObjects(tool.outputSchema, 'output')]).toEqual([tool.name, []]);
  }
}

describe('MCP tools of the todo service', () => {
  let t: TestApp;
  let url: string;
  let client: Client;
  const clients: Client[] = [];

  beforeAll(async () => {
    t = await startWithDatabase('todo-api');
    url = `${t.baseUrl}/api/v1/mcp`;
    const user = await insertUser(t.dataSource);
    await grantBetaAccess(t.dataSource, user.id);
    client = await connect(url, bearer((await insertApiKey(t.dataSource, user.id)).key), clients);
  });
  afterAll(async () => {
    for (const each of clients) await each.close().catch(() => undefined);
    await t?.close();
  });

  it('lists every tool with all annotations and an outputSchema, in the same order each time', async () => {
    const first = (await client.listTools()).tools;
    expectAgentGradeListing(first);
    expect(first.map((tool) => tool.name)).toEqual(['create_todo', 'create_todos', 'create_webhook', 'delete_todo', 'delete_webhook', 'get_todo', 'list_categories', 'list_todos', 'list_webhook_deliveries', 'list_webhooks', 'update_todo', 'update_todos']);
    expect((await client.listTools()).tools).toEqual(first);
  });

  it('answers every tool with structuredContent valid against its outputSchema', async () => {
    const tools = Object.fromEntries((await client.listTools()).tools.map((tool) => [tool.name, tool]));
    const created = await callAndValidate(client, tools.create_todo, { text: 'Contract', priority: 2, category: 'contract' });
    const id = (created.structuredContent!.todo as { id: number }).id;
    await callAndValidate(client, tools.get_todo, { id });
    await callAndValidate(client, tools.list_todos, { category: 'contract' });
    await callAndValidate(client, tools.update_todo, { id, estimatedDurationMinutes: null });
    const bulk = await callAndValidate(client, tools.create_todos, { todos: [{ text: 'Bulk 1', priority: 1, category: 'contract' }, { text: 'Bulk 2', priority: 4, category: 'bulk' }] });
    const bulkIds = (bulk.structuredContent!.todos as Array<{ id: number }>).map((each) => each.id);
    await callAndValidate(client, tools.update_todos, { todos: bulkIds.map((each) => ({ id: each, estimatedDurationMinutes: 5 })) });
    await callAndValidate(client, tools.list_categories, {});
    await callAndValidate(client, tools.delete_todo, { id });
    const hook = await callAndValidate(client, tools.create_webhook, { url: 'https://93.184.215.14/hooks/todos', eventTypes: ['todo.created'], description: 'Contract' });
    const hookId = (hook.structuredContent!.webhook as { id: string }).id;
    await callAndValidate(client, tools.list_webhooks, {});
    await callAndValidate(client, tools.list_webhook_deliveries, { id: hookId });
    await callAndValidate(client, tools.delete_webhook, { id: hookId });
  });

  it('pages list_todos with the cursor argument until nextCursor is null', async () => {
    const tools = Object.fromEntries((await client.listTools()).tools.map((tool) => [tool.name, tool]));
    for (let i = 0; i < 5; i++) await callAndValidate(client, tools.create_todo, { text: `page ${i}`, priority: 3, category: 'paged' });
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 5; page++) {
      const result = await callAndValidate(client, tools.list_todos, { category: 'paged', limit: 2, ...(cursor ? { cursor } : {}) });
      seen.push(...(result.structuredContent!.todos as Array<{ text: string }>).map((todo) => todo.text));
      cursor = (result.structuredContent!.nextCursor as string | null) ?? undefined;
      if (!cursor) break;
    }
    expect(seen).toEqual(['page 0', 'page 1', 'page 2', 'page 3', 'page 4']);
  });
});

describe('MCP tools of the feedback service', () => {
  let t: TestApp;
  let url: string;
  let owner: TestOwner;
  let site: TestSite;
  const clients: Client[] = [];

  beforeAll(async () => {
    t = await startWithDatabase('feedback-export');
    url = `${t.baseUrl}/api/v1/mcp`;
    owner = await createOwner(t);
    site = await createSite(t, owner, 'Contract');
    // Every optional field of an item present at least once, so the schema check sees them all.
    await seedFeedback(t, owner, site, 5, (i) =>
      i === 0 ? { reporterContext: { browser: 'Firefox 133', os: 'Android 15', viewport: '390x844', language: 'de-DE', referrer: 'https://search.example/' }, reporter: { id: 'user_1', email: 'ada@example.com', name: 'Ada' } } : {},
    );
  });
  afterAll(async () => {
    for (const each of clients) await each.close().catch(() => undefined);
    await t?.close();
  });

  it('lists to an sk_ token only the reading tools, to wk_ also the writing ones, to ok_ the portfolio; stable and agent-grade', async () => {
    const listed = async (token: string) => (await (await connect(url, bearer(token), clients)).listTools()).tools;
    const read = await listed(site.readToken);
    const write = await listed(site.writeToken);
    const portfolio = await listed(owner.portfolioToken);
    for (const tools of [read, write, portfolio]) expectAgentGradeListing(tools);
    expect(read.every((tool) => tool.annotations?.readOnlyHint === true)).toBe(true);
    expect(read.map((tool) => tool.name)).not.toContain('update_feedback_status');
    expect(write.map((tool) => tool.name)).toEqual(expect.arrayContaining(['update_feedback_status', 'create_question_batch', ...read.map((tool) => tool.name)]));
    expect(portfolio.map((tool) => tool.name)).toEqual(['list_portfolio_feedback']);
    expect(await listed(site.readToken)).toEqual(read);
    await resetRateLimits(t);
  });

  it('answers every tool with structuredContent valid against its outputSchema', async () => {
    const writer = await connect(url, bearer(site.writeToken), clients);
    const tools = Object.fromEntries((await writer.listTools()).tools.map((tool) => [tool.name, tool]));
    const page = await callAndValidate(writer, tools.list_feedback, {}); // every seeded item, the one with a reporter included
    const feedbackId = (page.structuredContent!.feedback as Array<{ id: string }>)[0].id;
    await callAndValidate(writer, tools.update_feedback_status, { id: feedbackId, status: 'triaged' });
    const sent = await callAndValidate(writer, tools.create_question_batch, { title: 'Contract', sendNow: true, questions: sampleQuestions(1) });
    const batchId = sent.structuredContent!.id as string;
    await callAndValidate(writer, tools.list_question_batches, {});
    await callAndValidate(writer, tools.get_question_batch, { id: batchId });
    await callAndValidate(writer, tools.get_share_link, { id: batchId });
    const draftId = (await callAndValidate(writer, tools.create_question_batch, { title: 'Contract draft', questions: sampleQuestions(1) })).structuredContent!.id as string;
    await callAndValidate(writer, tools.update_question_batch, { id: draftId, introHtml: null, notifyEmail: null, questions: sampleQuestions(2) });
    await callAndValidate(writer, tools.send_question_batch, { id: draftId });
    const doomedId = (await callAndValidate(writer, tools.create_question_batch, { title: 'Contract doomed', questions: sampleQuestions(1) })).structuredContent!.id as string;
    await callAndValidate(writer, tools.delete_question_batch, { id: doomedId });
    await callAndValidate(writer, tools.list_sites, {});
    const hook = await callAndValidate(writer, tools.create_webhook, { url: 'https://93.184.215.14/hooks/feedback', eventTypes: ['feedback.created'], description: 'Contract' });
    const hookId = (hook.structuredContent!.webhook as { id: string }).id;
    await callAndValidate(writer, tools.list_webhooks, { siteId: site.id });
    await callAndValidate(writer, tools.list_webhook_deliveries, { id: hookId });
    await callAndValidate(writer, tools.delete_webhook, { id: hookId });
    const portfolio = await connect(url, bearer(owner.portfolioToken), clients);
    const [portfolioTool] = (await portfolio.listTools()).tools;
    await callAndValidate(portfolio, portfolioTool, {});
    await resetRateLimits(t);
  });

  it('pages list_feedback and list_portfolio_feedback with the cursor argument', async () => {
    for (const [token, name] of [[site.readToken, 'list_feedback'], [owner.portfolioToken, 'list_portfolio_feedback']] as const) {
      const client = await connect(url, bearer(token), clients);
      const tool = (await client.listTools()).tools.find((each) => each.name === name)!;
      const seen: string[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < 5; page++) {
        const result = await callAndValidate(client, tool, { limit: 2, ...(cursor ? { cursor } : {}) });
        seen.push(...(result.structuredContent!.feedback as Array<{ id: string }>).map((item) => item.id));
        cursor = result.structuredContent!.nextCursor as string;
        if (!result.structuredContent!.hasMore) break;
      }
      expect([name, seen.length, new Set(seen).size]).toEqual([name, 5, 5]);
    }
    await resetRateLimits(t);
  });

  it('refuses a tool the token may not call with an isError result naming the REST code and the scope needed', async () => {
    const reader = await connect(url, bearer(site.readToken), clients);
    const result = (await reader.callTool({ name: 'update_feedback_status', arguments: { id: '00000000-0000-4000-8000-000000000000', status: 'triaged' } })) as ToolResult;
    expect(result.isError).toBe(true);
    expect(result.content[0].text).toMatch(/^INVALID_TOKEN: /);
    const body = JSON.parse(result.content[0].text.split('\n')[1]);
    expect(body.error).toEqual({ code: 'INVALID_TOKEN', message: expect.stringContaining('wk_'), details: { requiredScopes: ['write'] } });
    await resetRateLimits(t);
  });
});
