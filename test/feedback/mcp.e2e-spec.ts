import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startWithDatabase, type TestApp } from '../support/test-apps.js';
import { bearer, createOwner, createSite, resetRateLimits, seedFeedback, type TestOwner, type TestSite } from './feedback-fixtures.js';

type ToolResult = { isError?: boolean; structuredContent?: any; content: Array<{ type: string; text: string }> };

describe('feedback MCP server', () => {
  let t: TestApp;
  let owner: TestOwner;
  let site: TestSite;
  let otherSite: TestSite;
  let ids: string[];
  let otherIds: string[];
  const clients: Client[] = [];

  beforeAll(async () => {
    t = await startWithDatabase('feedback-export');
    owner = await createOwner(t);
    site = await createSite(t, owner, 'Main');
    otherSite = await createSite(t, owner, 'Side');
    ids = await seedFeedback(t, owner, site, 12, (i) => ({ type: i % 2 ? 'bug' : 'feedback' }));
    otherIds = await seedFeedback(t, owner, otherSite, 3);
  });
  afterAll(async () => {
    for (const client of clients) await client.close().catch(() => undefined);
    await t?.close();
  });

  async function connect(token: string): Promise<Client> {
    const client = new Client({ name: 'feedback-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${t.baseUrl}/api/v1/mcp`), { requestInit: { headers: bearer(token) } }));
    clients.push(client);
    return client;
  }

  const call = async (client: Client, name: string, args: Record<string, unknown> = {}) => (await client.callTool({ name, arguments: args })) as ToolResult;

  it('lists to each kind of token only the tools it may call', async () => {
    const expected: Array<[string, string[]]> = [
      [site.readToken, ['get_question_batch', 'list_feedback', 'list_question_batches', 'list_sites']],
      [
        site.writeToken,
        [
          'create_question_batch',
          'create_webhook',
          'delete_question_batch',
          'delete_webhook',
          'get_question_batch',
          'get_share_link',
          'list_feedback',
          'list_question_batches',
          'list_sites',
          'list_webhook_deliveries',
          'list_webhooks',
          'send_question_batch',
          'update_feedback_status',
          'update_question_batch',
        ],
      ],
      [owner.portfolioToken, ['list_portfolio_feedback']],
    ];
    for (const [token, names] of expected) {
      const { tools } = await (await connect(token)).listTools();
      expect(tools.map((tool) => tool.name)).toEqual(names);
    }
    const { tools } = await (await connect(site.writeToken)).listTools();
    const update = tools.find((tool) => tool.name === 'update_feedback_status')!;
    expect(update.annotations?.readOnlyHint).toBe(false);
    expect(update.inputSchema.properties).toHaveProperty('status');
    await resetRateLimits(t);
  });

  it('read token: list_feedback pages like REST; writing and the portfolio are refused with INVALID_TOKEN', async () => {
    const client = await connect(site.readToken);
    const seen: string[] = [];
    let since: string | undefined;
    for (let i = 0; i < 10; i++) {
      const result = await call(client, 'list_feedback', since ? { since, limit: 5 } : { limit: 5 });
      expect(result.isError).toBeFalsy();
      expect(JSON.parse(result.content[0].text)).toEqual(result.structuredContent);
      seen.push(...result.structuredContent.feedback.map((f: { id: string }) => f.id));
      since = result.structuredContent.nextCursor;
      if (!result.structuredContent.hasMore) break;
    }
    const rest = (await t.http.get('/api/v1/export/feedback').query({ limit: '200' }).set(bearer(site.readToken)).expect(200)).body.data.feedback;
    expect(seen).toEqual(rest.map((f: { id: string }) => f.id));
    expect(new Set(seen)).toEqual(new Set(ids));

    const bugs = await call(client, 'list_feedback', { type: 'bug' });
    expect(bugs.structuredContent.feedback.every((f: { type: string }) => f.type === 'bug')).toBe(true);
    expect(bugs.structuredContent.feedback).toHaveLength(6);

    const update = await call(client, 'update_feedback_status', { id: ids[0], status: 'triaged' });
    expect(update.isError).toBe(true);
    expect(update.content[0].text).toContain('INVALID_TOKEN');
    const portfolio = await call(client, 'list_portfolio_feedback');
    expect(portfolio.isError).toBe(true);
    expect(portfolio.content[0].text).toContain('INVALID_TOKEN');
    const [row] = await t.dataSource.query(`SELECT status FROM feedback WHERE id = $1`, [ids[0]]);
    expect(row.status).toBe('new');
    await resetRateLimits(t);
  });

  it('site token: list_sites names its own site; siteId may name it, another site (even the owner\'s) is NOT_FOUND', async () => {
    const client = await connect(site.readToken);
    const sites = await call(client, 'list_sites');
    expect(sites.structuredContent.sites).toEqual([{ id: site.id, slug: site.slug, name: expect.any(String), scope: 'read' }]);
    const own = await call(client, 'list_feedback', { siteId: site.id, limit: 1 });
    expect(own.isError).toBeFalsy();
    expect(own.structuredContent.feedback[0].siteId).toBe(site.id);
    const sibling = await createSite(t, owner, 'Sibling');
    const elsewhere = await call(client, 'list_feedback', { siteId: sibling.id });
    expect(elsewhere.isError).toBe(true);
    expect(elsewhere.content[0].text).toMatch(/^NOT_FOUND: /);
    const malformed = await call(client, 'list_feedback', { siteId: 'not-a-uuid' });
    expect(malformed.content[0].text).toMatch(/^VALIDATION_ERROR: /);
    await t.http.delete(`/api/v1/sites/${sibling.id}`).set(bearer(owner.jwt)).expect(200);
    await resetRateLimits(t);
  });

  it('write token: update_feedback_status changes its own site only and answers {feedback}', async () => {
    const client = await connect(site.writeToken);
    const result = await call(client, 'update_feedback_status', { id: ids[1], status: 'resolved' });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent.feedback).toMatchObject({ id: ids[1], status: 'resolved', siteId: site.id });
    const [row] = await t.dataSource.query(`SELECT status FROM feedback WHERE id = $1`, [ids[1]]);
    expect(row.status).toBe('resolved');

    const foreign = await call(client, 'update_feedback_status', { id: otherIds[0], status: 'resolved' });
    expect(foreign.isError).toBe(true);
    expect(foreign.content[0].text).toContain('NOT_FOUND');
    const badId = await call(client, 'update_feedback_status', { id: 'nope', status: 'resolved' });
    expect(badId.isError).toBe(true);
    expect(badId.content[0].text).toContain('VALIDATION_ERROR');
    const badStatus = await call(client, 'update_feedback_status', { id: ids[2], status: 'new' });
    expect(badStatus.isError).toBe(true);
    const list = await call(client, 'list_feedback', { limit: 1 });
    expect(list.isError).toBeFalsy();
    expect((await call(client, 'list_portfolio_feedback')).isError).toBe(true);
    await resetRateLimits(t);
  });

  it('portfolio token: list_portfolio_feedback only, with sites; cursor kinds stay apart', async () => {
    const client = await connect(owner.portfolioToken);
    const page = await call(client, 'list_portfolio_feedback', { limit: 200 });
    expect(page.isError).toBeFalsy();
    expect(page.structuredContent.feedback).toHaveLength(15);
    expect(page.structuredContent.sites.map((s: { slug: string }) => s.slug)).toEqual(['main', 'side']);
    expect(page.structuredContent.feedback[0]).toHaveProperty('siteSlug');
    const siteTool = await call(client, 'list_feedback');
    expect(siteTool.isError).toBe(true);
    expect(siteTool.content[0].text).toContain('INVALID_TOKEN');
    expect((await call(client, 'update_feedback_status', { id: ids[3], status: 'triaged' })).isError).toBe(true);

    const siteCursor = (await call(await connect(site.readToken), 'list_feedback', { limit: 1 })).structuredContent.nextCursor;
    const mismatch = await call(client, 'list_portfolio_feedback', { since: siteCursor });
    expect(mismatch.isError).toBe(true);
    expect(mismatch.content[0].text).toContain('CURSOR_MISMATCH');
    const tooBig = await call(client, 'list_portfolio_feedback', { limit: 201 });
    expect(tooBig.isError).toBe(true);
    await resetRateLimits(t);
  });

  it('refuses missing, unknown and rotated tokens with HTTP 401 and a JSON-RPC error', async () => {
    const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } };
    const oldToken = site.readToken;
    site.readToken = (await t.http.post(`/api/v1/sites/${site.id}/tokens/read/rotate`).set(bearer(owner.jwt)).expect(200)).body.data.token;
    for (const headers of [{}, bearer('wk_' + 'a'.repeat(43)), bearer(oldToken), bearer(owner.jwt)]) {
      const res = await t.http.post('/api/v1/mcp').set(headers).set('Accept', 'application/json, text/event-stream').send(initialize).expect(401);
      expect(res.body).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32001, message: expect.stringMatching(/^INVALID_TOKEN: /), data: { code: 'INVALID_TOKEN' } } });
    }
    await expect(connect(oldToken)).rejects.toThrow();
    expect((await t.http.get('/api/v1/mcp').set(bearer(site.readToken))).status).toBe(405);
    const foreignOrigin = await t.http.post('/api/v1/mcp').set(bearer(site.readToken)).set('Origin', 'https://evil.example').set('Accept', 'application/json, text/event-stream').send(initialize);
    expect(foreignOrigin.status).toBe(403);
    await resetRateLimits(t);
  });

  it('shares the 60-per-minute budget of the token with REST (429 on the 61st)', async () => {
    for (let i = 0; i < 59; i++) await t.http.get('/api/v1/export/feedback').set(bearer(site.writeToken)).expect(200);
    const ping = { jsonrpc: '2.0', id: 7, method: 'ping' };
    await t.http.post('/api/v1/mcp').set(bearer(site.writeToken)).set('Accept', 'application/json, text/event-stream').send(ping).expect(200);
    const limited = await t.http.post('/api/v1/mcp').set(bearer(site.writeToken)).set('Accept', 'application/json, text/event-stream').send(ping).expect(429);
    expect(limited.headers['retry-after']).toBeDefined();
    expect(limited.body.error.data.code).toBe('RATE_LIMITED');
  });

  it("carries the widget's reporter context through the SDK client's output-schema check (list_feedback, list_portfolio_feedback)", async () => {
    await resetRateLimits(t);
    const reporter = await createOwner(t);
    const shop = await createSite(t, reporter, 'Context shop');
    const reporterContext = { browser: 'Firefox 133', os: 'Android 15', viewport: '390x844', language: 'de-DE', referrer: 'https://search.example/' };
    await seedFeedback(t, reporter, shop, 1, () => ({ reporterContext }));
    await seedFeedback(t, reporter, shop, 1);
    const site = await call(await connect(shop.readToken), 'list_feedback');
    expect(site.isError).toBeFalsy();
    expect(site.structuredContent.feedback[0].reporterContext).toEqual(reporterContext);
    expect(site.structuredContent.feedback[1]).not.toHaveProperty('reporterContext');
    const portfolio = await call(await connect(reporter.portfolioToken), 'list_portfolio_feedback');
    expect(portfolio.isError).toBeFalsy();
    expect(portfolio.structuredContent.feedback[0]).toMatchObject({ reporterContext, siteSlug: shop.slug });
  });
});
