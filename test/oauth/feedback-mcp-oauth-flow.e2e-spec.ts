import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { importJWK, SignJWT, type JWK } from 'jose';
import type { Browser } from 'playwright-core';
import { createTestDatabase, freePort, insertUser, launchBrowser, type TestDatabase, type TestUser } from '#libs/testing';
import { bearer, createSite, seedFeedback, type TestOwner, type TestSite } from '../feedback/feedback-fixtures.js';
import { startApp, type TestApp } from '../support/test-apps.js';
import { consentInBrowser } from './support/consent-page.js';
import { MemoryOAuthClient } from './support/memory-oauth-client.js';
import { grantBetaAccess } from '../support/api-access.js';

type ToolResult = { isError?: boolean; structuredContent?: any; content: Array<{ type: string; text: string }> };

const MCP_ACCEPT = 'application/json, text/event-stream';
const ALL_FEEDBACK_TOOLS = [
  'create_question_batch',
  'create_webhook',
  'delete_question_batch',
  'delete_webhook',
  'get_question_batch',
  'get_share_link',
  'list_feedback',
  'list_portfolio_feedback',
  'list_question_batches',
  'list_sites',
  'list_webhook_deliveries',
  'list_webhooks',
  'send_question_batch',
  'update_feedback_status',
  'update_question_batch',
];

/**
 * An agent connects to the feedback MCP endpoint with the MCP SDK's own OAuth client: the 401
 * of the feedback service points at the todo service's authorization server, the user signs in
 * there, chooses the scopes and the one site they hold for, and the feedback MCP endpoint
 * accepts the token like the export token of the same scope, for that site only.
 */
describe('OAuth 2.1 sign-in for the feedback MCP endpoint (MCP SDK client)', () => {
  let database: TestDatabase;
  let todo: TestApp;
  let feedback: TestApp;
  let base: string;
  let feedbackMcpUrl: URL;
  let browser: Browser;
  let user: TestUser;
  let siteA: TestSite;
  let siteB: TestSite;
  let strangerSite: TestSite;
  let feedbackOfA: string[];
  let feedbackOfB: string[];
  const redirectUrl = 'http://127.0.0.1:9/agent/callback';

  async function ownerOf(account: TestUser): Promise<TestOwner> {
    await grantBetaAccess(todo.dataSource, account.id);
    return { id: account.id, jwt: await feedback.accessTokenFor(account.id), portfolioToken: '' };
  }

  beforeAll(async () => {
    const [todoPort, feedbackPort] = [await freePort(), await freePort()];
    base = `http://127.0.0.1:${todoPort}`;
    const feedbackBase = `http://127.0.0.1:${feedbackPort}`;
    const env = { PUBLIC_BASE_URL: base, FEEDBACK_PUBLIC_BASE_URL: feedbackBase };
    database = await createTestDatabase({ migrated: true });
    todo = await startApp('todo-api', database.url, env, { port: todoPort });
    feedback = await startApp('feedback-export', database.url, env, { port: feedbackPort });
    feedbackMcpUrl = new URL(`${feedbackBase}/api/v1/mcp`);
    browser = await launchBrowser();
    user = await insertUser(todo.dataSource);
    const owner = await ownerOf(user);
    siteA = await createSite(feedback, owner, 'Alpha shop');
    siteB = await createSite(feedback, owner, 'Beta blog');
    strangerSite = await createSite(feedback, await ownerOf(await insertUser(todo.dataSource)), 'Stranger site');
    feedbackOfA = await seedFeedback(feedback, owner, siteA, 2, (i) => ({ message: `alpha ${i}` }));
    feedbackOfB = await seedFeedback(feedback, owner, siteB, 2, (i) => ({ message: `beta ${i}` }));
  });
  afterAll(async () => {
    await browser?.close();
    await feedback?.close();
    await todo?.close();
    await database?.drop();
  });

  /** The user's side in the browser: sign in, untick scopes, choose the site when asked. */
  const consent = (url: URL, options: { untick?: string[]; sites?: string[] } = {}) => consentInBrowser(browser, url, redirectUrl, { email: user.email, password: user.password, ...options });

  /** 401 → discovery → registration → browser → code → token, against the feedback MCP endpoint. */
  async function connectAgent(options: { untick?: string[]; sites?: string[] } = {}): Promise<{ client: Client; agent: MemoryOAuthClient; sitesListed: string[] }> {
    const agent = new MemoryOAuthClient(redirectUrl);
    const first = new StreamableHTTPClientTransport(feedbackMcpUrl, { authProvider: agent });
    await expect(new Client({ name: 'agent', version: '1.0.0' }).connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
    const { code, sitesListed } = await consent(agent.authorizationUrl!, options);
    expect(code).not.toMatch(/^error:/);
    await first.finishAuth(code);
    const client = new Client({ name: 'agent', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(feedbackMcpUrl, { authProvider: agent }));
    return { client, agent, sitesListed };
  }

  const mcpPost = (target: TestApp, token: string) =>
    target.http.post('/api/v1/mcp').set('Accept', MCP_ACCEPT).set(bearer(token)).send({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });

  async function signedWithServerKey(claims: Record<string, unknown>): Promise<string> {
    const [{ jwk }] = await todo.dataSource.query(`SELECT jwk FROM oauth_signing_keys WHERE jwk->>'alg' = 'ES256' ORDER BY created_at DESC LIMIT 1`);
    return new SignJWT(claims).setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: (jwk as JWK).kid }).sign(await importJWK(jwk as JWK, 'ES256'));
  }

  const claimsOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString());

  it('signs an agent in from the feedback MCP 401 end to end: it chooses one of its own sites and calls the tools on it', async () => {
    const agent = new MemoryOAuthClient(redirectUrl, 'Feedback Agent');
    const transport = new StreamableHTTPClientTransport(feedbackMcpUrl, { authProvider: agent });
    await expect(new Client({ name: 'agent', version: '1.0.0' }).connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);
    expect(agent.information?.client_id).toEqual(expect.any(String));
    const authorize = agent.authorizationUrl!;
    expect(authorize.href.startsWith(`${base}/oauth/authorize?`)).toBe(true);
    expect(authorize.searchParams.get('resource')).toBe(feedbackMcpUrl.href);
    expect(authorize.searchParams.get('scope')).toBe('feedback:read feedback:write portfolio:read');

    const page = await browser.newPage();
    await page.goto(authorize.href);
    await expect(page.locator('#client-name').textContent()).resolves.toBe('Feedback Agent');
    await expect(page.locator('#redirect-target').textContent()).resolves.toBe(redirectUrl);
    for (const scope of ['feedback:read', 'feedback:write', 'portfolio:read']) {
      await expect(page.getByRole('checkbox', { name: new RegExp(scope) }).isChecked()).resolves.toBe(true);
    }
    await page.close();

    const { code, sitesListed } = await consent(authorize, { sites: ['Alpha shop'] });
    // The account's own sites, and only those.
    expect(sitesListed).toEqual([`Alpha shop (${siteA.slug})`, `Beta blog (${siteB.slug})`]);
    await transport.finishAuth(code);
    expect(agent.savedTokens).toMatchObject({ scope: 'feedback:read feedback:write portfolio:read', refresh_token: expect.any(String) });
    const claims = claimsOf(agent.savedTokens!.access_token);
    expect(claims.aud).toBe(feedbackMcpUrl.href);
    expect(claims.authorization_details).toEqual([{ type: 'feedback_site', locations: [feedbackMcpUrl.href], identifier: siteA.id, actions: ['read', 'write'] }]);

    const client = new Client({ name: 'agent', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(feedbackMcpUrl, { authProvider: agent }));
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(ALL_FEEDBACK_TOOLS);
    const listed = (await client.callTool({ name: 'list_feedback', arguments: {} })) as ToolResult;
    expect(listed.isError).toBeFalsy();
    expect(listed.structuredContent.feedback.map((item: { message: string }) => item.message).sort()).toEqual(['alpha 0', 'alpha 1']);
    const triaged = (await client.callTool({ name: 'update_feedback_status', arguments: { id: feedbackOfA[0], status: 'triaged' } })) as ToolResult;
    expect(triaged.isError).toBeFalsy();
    expect(triaged.structuredContent.feedback).toMatchObject({ id: feedbackOfA[0], status: 'triaged' });
    const portfolio = (await client.callTool({ name: 'list_portfolio_feedback', arguments: {} })) as ToolResult;
    expect(portfolio.structuredContent.sites.map((site: { id: string }) => site.id).sort()).toEqual([siteA.id, siteB.id].sort());
    await client.close();

    // Counted per grant in the export tokens' bucket, as the todo MCP counts its tokens.
    expect(await feedback.rateLimits.keys(`feedback-export-token:oauth-grant:${claims.gid}`)).toHaveLength(1);

    // A refreshed access token keeps the grant's site.
    const refreshed = await fetch(`${base}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: agent.savedTokens!.refresh_token!, client_id: agent.information!.client_id }),
    });
    expect(refreshed.status).toBe(200);
    const { access_token: renewed } = (await refreshed.json()) as { access_token: string };
    expect(claimsOf(renewed)).toMatchObject({ aud: feedbackMcpUrl.href, authorization_details: claims.authorization_details });
    await mcpPost(feedback, renewed).expect(200);
  });

  it('holds for the chosen site only: a token for site A cannot read or change site B', async () => {
    const { client } = await connectAgent({ untick: ['portfolio:read'], sites: ['Alpha shop'] });
    const listed = (await client.callTool({ name: 'list_feedback', arguments: {} })) as ToolResult;
    expect(listed.structuredContent.feedback.map((item: { siteId: string }) => item.siteId)).toEqual([siteA.id, siteA.id]);
    const elsewhere = (await client.callTool({ name: 'update_feedback_status', arguments: { id: feedbackOfB[0], status: 'resolved' } })) as ToolResult;
    expect(elsewhere.isError).toBe(true);
    expect(elsewhere.content[0].text).toMatch(/^NOT_FOUND: /);
    const [row] = await feedback.dataSource.query(`SELECT status FROM feedback WHERE id = $1`, [feedbackOfB[0]]);
    expect(row.status).toBe('new');
    await client.close();

    // Neither can a forged choice of the page name another account's site: the form is checked against the account's sites.
    const agent = new MemoryOAuthClient(redirectUrl);
    const transport = new StreamableHTTPClientTransport(feedbackMcpUrl, { authProvider: agent });
    await expect(new Client({ name: 'agent', version: '1.0.0' }).connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);
    const page = await browser.newPage();
    await page.goto(agent.authorizationUrl!.href);
    await page.getByLabel('E-mail').fill(user.email);
    await page.getByLabel('Password').fill(user.password);
    await page.getByRole('button', { name: 'Allow' }).click();
    const siteBoxes = page.getByRole('group', { name: 'Sites' }).getByRole('checkbox');
    await siteBoxes.first().waitFor();
    await siteBoxes.first().evaluate((box, id) => box.setAttribute('value', id), strangerSite.id);
    await siteBoxes.first().check();
    const [answer] = await Promise.all([page.waitForResponse((response) => response.request().method() === 'POST'), page.getByRole('button', { name: 'Allow' }).click()]);
    // The page again (not the redirect back to the app with a code), asking for one of the account's sites.
    expect(answer.status()).toBe(400);
    await expect(page.getByRole('alert').textContent()).resolves.toContain('Choose at least one site the app may use.');
    await page.close();
  });

  it('a grant over several sites acts on each one siteId names (list_sites lists them) and asks for one when none is named', async () => {
    const { client, agent, sitesListed } = await connectAgent({ untick: ['portfolio:read'], sites: ['Alpha shop', 'Beta blog'] });
    expect(sitesListed).toEqual([`Alpha shop (${siteA.slug})`, `Beta blog (${siteB.slug})`]);
    const details = claimsOf(agent.savedTokens!.access_token).authorization_details as Array<{ identifier: string; actions: string[] }>;
    expect(details.map((detail) => [detail.identifier, detail.actions])).toEqual([
      [siteA.id, ['read', 'write']],
      [siteB.id, ['read', 'write']],
    ]);
    const sites = (await client.callTool({ name: 'list_sites', arguments: {} })) as ToolResult;
    expect(sites.structuredContent.sites).toEqual([
      { id: siteA.id, slug: siteA.slug, name: 'Alpha shop', scope: 'write' },
      { id: siteB.id, slug: siteB.slug, name: 'Beta blog', scope: 'write' },
    ]);
    for (const [site, messages] of [
      [siteA, ['alpha 0', 'alpha 1']],
      [siteB, ['beta 0', 'beta 1']],
    ] as const) {
      const listed = (await client.callTool({ name: 'list_feedback', arguments: { siteId: site.id } })) as ToolResult;
      expect(listed.structuredContent.feedback.map((item: { message: string }) => item.message).sort()).toEqual(messages);
    }
    const triaged = (await client.callTool({ name: 'update_feedback_status', arguments: { siteId: siteB.id, id: feedbackOfB[1], status: 'triaged' } })) as ToolResult;
    expect(triaged.structuredContent.feedback).toMatchObject({ id: feedbackOfB[1], siteId: siteB.id, status: 'triaged' });

    // No site named: which one is asked, nothing guessed. Another account's site, or an item of B named with A: not found.
    const unnamed = (await client.callTool({ name: 'list_feedback', arguments: {} })) as ToolResult;
    expect(unnamed.isError).toBe(true);
    expect(unnamed.content[0].text).toMatch(/^VALIDATION_ERROR: /);
    expect(JSON.parse(unnamed.content[0].text.split('\n')[1]).error.details.fields).toEqual([{ field: 'siteId', messages: [expect.stringMatching(/^siteId is required/)] }]);
    const foreign = (await client.callTool({ name: 'list_feedback', arguments: { siteId: strangerSite.id } })) as ToolResult;
    expect(foreign.content[0].text).toMatch(/^NOT_FOUND: /);
    const crossed = (await client.callTool({ name: 'update_feedback_status', arguments: { siteId: siteA.id, id: feedbackOfB[0], status: 'resolved' } })) as ToolResult;
    expect(crossed.content[0].text).toMatch(/^NOT_FOUND: /);
    const [row] = await feedback.dataSource.query(`SELECT status FROM feedback WHERE id = $1`, [feedbackOfB[0]]);
    expect(row.status).toBe('new');
    await client.close();
  });

  it('a read-only grant lists only the reading tools; a write tool or the portfolio answers INVALID_TOKEN naming the scope it needs', async () => {
    const { client, agent } = await connectAgent({ untick: ['feedback:write', 'portfolio:read'], sites: ['Alpha shop'] });
    expect(agent.savedTokens!.scope).toBe('feedback:read');
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(['get_question_batch', 'list_feedback', 'list_question_batches', 'list_sites']);
    const read = (await client.callTool({ name: 'list_feedback', arguments: {} })) as ToolResult;
    expect(read.isError).toBeFalsy();
    const write = (await client.callTool({ name: 'update_feedback_status', arguments: { id: feedbackOfA[1], status: 'resolved' } })) as ToolResult;
    expect(write.isError).toBe(true);
    expect(write.content[0].text).toMatch(/^INVALID_TOKEN: .*feedback:write/);
    expect(JSON.parse(write.content[0].text.split('\n')[1]).error.details).toEqual({ requiredScopes: ['write'] });
    const portfolio = (await client.callTool({ name: 'list_portfolio_feedback', arguments: {} })) as ToolResult;
    expect(portfolio.content[0].text).toMatch(/^INVALID_TOKEN: .*portfolio:read/);
    await client.close();
  });

  it('a portfolio-only grant needs no site and reads the portfolio only', async () => {
    const { client, agent, sitesListed } = await connectAgent({ untick: ['feedback:read', 'feedback:write'] });
    expect(sitesListed).toEqual([]);
    expect(agent.savedTokens!.scope).toBe('portfolio:read');
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['list_portfolio_feedback']);
    const site = (await client.callTool({ name: 'list_feedback', arguments: {} })) as ToolResult;
    expect(site.content[0].text).toMatch(/^INVALID_TOKEN: .*feedback:read/);
    await client.close();
  });

  it('binds tokens to their resource: todo MCP tokens are 401 here, feedback MCP tokens are 401 on the todo MCP and on REST; expired is 401 with the challenge', async () => {
    const { client, agent } = await connectAgent({ sites: ['Alpha shop'] });
    await client.close();
    const token = agent.savedTokens!.access_token;
    await mcpPost(feedback, token).expect(200);

    const onTodoMcp = await mcpPost(todo, token).expect(401);
    expect(onTodoMcp.headers['www-authenticate']).toBe(`Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/api/v1/mcp", scope="todos:read todos:write"`);
    await feedback.http.get('/api/v1/export/feedback').set(bearer(token)).expect(401);
    await feedback.http.get('/api/v1/export/portfolio/feedback').set(bearer(token)).expect(401);
    await todo.http.get('/api/v1/todos').set(bearer(token)).expect(401);

    // A todo MCP token of the same account, signed by the same server: not for this resource.
    const todoToken = await signedWithServerKey({ ...claimsOf(token), aud: `${base}/api/v1/mcp`, scope: 'todos:read todos:write' });
    await mcpPost(todo, todoToken).expect(200);
    const refused = await mcpPost(feedback, todoToken).expect(401);
    const challenge = `Bearer resource_metadata="${feedbackMcpUrl.origin}/.well-known/oauth-protected-resource/api/v1/mcp", scope="feedback:read feedback:write portfolio:read"`;
    expect(refused.headers['www-authenticate']).toBe(challenge);
    expect(refused.body.error.data.code).toBe('INVALID_TOKEN');

    const claims = claimsOf(token);
    const expired = await signedWithServerKey({ ...claims, iat: claims.iat - 7200, exp: claims.iat - 3600 });
    const late = await mcpPost(feedback, expired).expect(401);
    expect(late.headers['www-authenticate']).toBe(challenge);
    expect(late.body.error.message).toMatch(/expired/);

    // The export tokens keep working as before.
    await mcpPost(feedback, siteA.readToken).expect(200);
  });

  it('revoking the connected app ends its feedback tokens at once (401 with the challenge)', async () => {
    const { client, agent } = await connectAgent({ sites: ['Alpha shop'] });
    const ok = (await client.callTool({ name: 'list_feedback', arguments: {} })) as ToolResult;
    expect(ok.isError).toBeFalsy();
    await client.close();
    const jwt = await todo.accessTokenFor(user.id);
    const listed = await todo.http.get('/api/v1/account/connected-apps').set(bearer(jwt)).expect(200);
    const app = listed.body.data.connectedApps.find((candidate: { clientId: string }) => candidate.clientId === agent.information!.client_id);
    expect(app).toMatchObject({ resources: [feedbackMcpUrl.href], scopes: ['feedback:read', 'feedback:write', 'portfolio:read'] });

    await todo.http.delete(`/api/v1/account/connected-apps/${agent.information!.client_id}`).set(bearer(jwt)).expect(200);
    const revoked = await mcpPost(feedback, agent.savedTokens!.access_token).expect(401);
    expect(revoked.headers['www-authenticate']).toMatch(/^Bearer resource_metadata="/);
    expect(revoked.body.error.data.code).toBe('INVALID_TOKEN');
  });

  it('refuses authorization details a client asks for itself (the site is the user’s choice on the page)', async () => {
    const agent = new MemoryOAuthClient(redirectUrl);
    const transport = new StreamableHTTPClientTransport(feedbackMcpUrl, { authProvider: agent });
    await expect(new Client({ name: 'agent', version: '1.0.0' }).connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);
    const authorize = new URL(agent.authorizationUrl!);
    authorize.searchParams.set('authorization_details', JSON.stringify([{ type: 'feedback_site', locations: [feedbackMcpUrl.href], identifier: strangerSite.id, actions: ['read'] }]));
    const res = await fetch(authorize, { redirect: 'manual' });
    // No user consented to this client yet: the error stays on our page (not a redirect to the client).
    expect([res.status, res.headers.get('location')]).toEqual([400, null]);
    expect(await res.text()).toContain('<strong>invalid_authorization_details</strong>');
  });
});
