import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHash, randomBytes } from 'node:crypto';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { importJWK, SignJWT, type JWK } from 'jose';
import type { Browser } from 'playwright-core';
import { freePort, insertUser, launchBrowser, type TestUser } from '#libs/testing';
import { startApp, startWithDatabase, type TestApp } from '../support/test-apps.js';
import { consentInBrowser } from './support/consent-page.js';
import { MemoryOAuthClient } from './support/memory-oauth-client.js';
import { grantBetaAccess } from '../support/api-access.js';

type ToolResult = { isError?: boolean; structuredContent?: any; content: Array<{ type: string; text: string }> };

/**
 * An agent connects to the todo MCP endpoint the way hosted assistants do: the MCP SDK's own
 * client with an OAuthClientProvider discovers the authorization server from the 401, registers,
 * sends the user's browser to sign in and consent (driven here in the test suite's browser),
 * exchanges the code and calls tools with the access token.
 */
describe('OAuth 2.1 sign-in for the todo MCP endpoint (MCP SDK client)', () => {
  let t: TestApp;
  let feedback: TestApp;
  let base: string;
  let mcpUrl: URL;
  let browser: Browser;
  let user: TestUser;
  const redirectUrl = 'http://127.0.0.1:9/agent/callback';

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    t = await startWithDatabase('todo-api', { PUBLIC_BASE_URL: base }, { port });
    feedback = await startApp('feedback-export', (t as TestApp & { database: { url: string } }).database.url, { PUBLIC_BASE_URL: base });
    mcpUrl = new URL(`${base}/api/v1/mcp`);
    browser = await launchBrowser();
    user = await insertUser(t.dataSource);
    await grantBetaAccess(t.dataSource, user.id);
  });
  afterAll(async () => {
    await browser?.close();
    await feedback?.close();
    await t?.close();
  });

  /** The user's side: sign-in and consent in the browser, until it sends the browser back to the agent with a code. */
  const consent = (url: URL, options: { untick?: string[] } = {}) => consentInBrowser(browser, url, redirectUrl, { email: user.email, password: user.password, ...options });

  /** The whole agent flow: 401 → discovery → registration → browser → code → token; answers a connected client. */
  async function connectAgent(options: { untick?: string[] } = {}): Promise<{ client: Client; agent: MemoryOAuthClient }> {
    const agent = new MemoryOAuthClient(redirectUrl);
    const first = new StreamableHTTPClientTransport(mcpUrl, { authProvider: agent });
    await expect(new Client({ name: 'agent', version: '1.0.0' }).connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
    expect(agent.information?.client_id).toEqual(expect.any(String));
    expect(agent.authorizationUrl?.href.startsWith(`${base}/oauth/authorize?`)).toBe(true);
    const { code } = await consent(agent.authorizationUrl!, options);
    await first.finishAuth(code);
    expect(agent.savedTokens?.access_token).toEqual(expect.any(String));
    const client = new Client({ name: 'agent', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: agent }));
    return { client, agent };
  }

  const mcpPost = (token: string, target = t) =>
    target.http
      .post('/api/v1/mcp')
      .set('Accept', 'application/json, text/event-stream')
      .set('Authorization', `Bearer ${token}`)
      .send({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });

  async function tokenRequest(params: Record<string, string>): Promise<{ status: number; body: any }> {
    const res = await fetch(`${base}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(params) });
    return { status: res.status, body: await res.json() };
  }

  it('publishes RFC 8414 metadata: code flow with PKCE S256 only, registration, revocation, the scopes', async () => {
    const res = await t.http.get('/.well-known/oauth-authorization-server').expect(200);
    expect(res.body).toMatchObject({
      issuer: base,
      authorization_endpoint: `${base}/oauth/authorize`,
      token_endpoint: `${base}/oauth/token`,
      registration_endpoint: `${base}/oauth/register`,
      revocation_endpoint: `${base}/oauth/revoke`,
      jwks_uri: `${base}/oauth/jwks`,
      response_types_supported: ['code'],
      code_challenge_methods_supported: ['S256'],
    });
    expect(res.body.grant_types_supported).toEqual(expect.arrayContaining(['authorization_code', 'refresh_token']));
    expect(res.body.grant_types_supported).not.toContain('implicit');
    expect(res.body.scopes_supported).toEqual(expect.arrayContaining(['todos:read', 'todos:write']));
    expect(res.body.token_endpoint_auth_methods_supported).toContain('none');
  });

  it('signs an agent in end to end and lets it call tools; the page shows the client, its redirect host and the scopes', async () => {
    const agent = new MemoryOAuthClient(redirectUrl, 'Helpful Agent');
    const transport = new StreamableHTTPClientTransport(mcpUrl, { authProvider: agent });
    await expect(new Client({ name: 'agent', version: '1.0.0' }).connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);
    const authorize = agent.authorizationUrl!;
    expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorize.searchParams.get('resource')).toBe(mcpUrl.href);
    expect(authorize.searchParams.get('scope')).toBe('todos:read todos:write');

    const page = await browser.newPage();
    const response = await page.goto(authorize.href);
    const csp = response!.headers()['content-security-policy'];
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("form-action 'self' http://127.0.0.1:9");
    await expect(page.locator('#client-name').textContent()).resolves.toBe('Helpful Agent');
    await expect(page.locator('#redirect-target').textContent()).resolves.toBe(redirectUrl);
    await expect(page.getByRole('checkbox', { name: /todos:read/ }).isChecked()).resolves.toBe(true);
    await expect(page.getByRole('checkbox', { name: /todos:write/ }).isChecked()).resolves.toBe(true);
    // A wrong password stays on the page with the login rules' answer.
    await page.getByLabel('E-mail').fill(user.email);
    await page.getByLabel('Password').fill('wrong password');
    await page.getByRole('button', { name: 'Allow' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toContain('Wrong e-mail or password');
    await page.close();

    const { code } = await consent(authorize);
    await transport.finishAuth(code);
    expect(agent.savedTokens).toMatchObject({ token_type: expect.stringMatching(/^bearer$/i), scope: expect.stringContaining('todos:write'), refresh_token: expect.any(String) });

    const client = new Client({ name: 'agent', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: agent }));
    const created = (await client.callTool({ name: 'create_todo', arguments: { text: 'from an OAuth agent', priority: 2, category: 'work' } })) as ToolResult;
    expect(created.isError).toBeFalsy();
    const listed = (await client.callTool({ name: 'list_todos', arguments: {} })) as ToolResult;
    expect(listed.structuredContent.todos.map((todo: { text: string }) => todo.text)).toContain('from an OAuth agent');
    await client.close();
  });

  it('refuses the todo MCP token on REST, on JWT routes and on the feedback MCP endpoint (401); another audience or an expired token is 401 here with the challenge', async () => {
    const { client, agent } = await connectAgent();
    await client.close();
    const token = agent.savedTokens!.access_token;
    await mcpPost(token).expect(200);
    await t.http.get('/api/v1/todos').set('Authorization', `Bearer ${token}`).expect(401);
    await t.http.get('/api/v1/account/export').set('Authorization', `Bearer ${token}`).expect(401);
    const refused = await mcpPost(token, feedback).expect(401);
    expect(refused.headers['www-authenticate']).toMatch(/^Bearer resource_metadata=/);

    // Signed with the server's own key, for the right account and grant, but another audience.
    const [{ jwk }] = await t.dataSource.query(`SELECT jwk FROM oauth_signing_keys WHERE jwk->>'alg' = 'ES256' ORDER BY created_at DESC LIMIT 1`);
    const claims = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString());
    const elsewhere = await new SignJWT({ ...claims, aud: 'https://elsewhere.example.test/mcp' })
      .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: (jwk as JWK).kid })
      .sign(await importJWK(jwk as JWK, 'ES256'));
    const wrongAudience = await mcpPost(elsewhere).expect(401);
    expect(wrongAudience.headers['www-authenticate']).toBe(`Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/api/v1/mcp", scope="todos:read todos:write"`);
    expect(wrongAudience.body.error.data.code).toBe('INVALID_TOKEN');

    // The same token, expired: an HTTP 401 with the challenge (so the SDK refreshes), not a tool error.
    const expired = await new SignJWT({ ...claims, iat: claims.iat - 7200, exp: claims.iat - 3600 })
      .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: (jwk as JWK).kid })
      .sign(await importJWK(jwk as JWK, 'ES256'));
    const late = await mcpPost(expired).expect(401);
    expect(late.headers['www-authenticate']).toMatch(/^Bearer resource_metadata="/);
    expect(late.body.error.message).toMatch(/expired/);
  });

  it('replays create_todo with the same idempotencyKey per grant: a retry creates nothing, another body is IDEMPOTENCY_KEY_REUSED, another app has its own keys', async () => {
    const args = { text: 'Once per grant', priority: 1, category: 'oauth-idem', idempotencyKey: 'agent-retry-1' };
    const { client } = await connectAgent();
    const first = (await client.callTool({ name: 'create_todo', arguments: args })) as ToolResult;
    expect(first.isError).toBeFalsy();
    const retried = (await client.callTool({ name: 'create_todo', arguments: args })) as ToolResult;
    expect(retried.structuredContent).toEqual(first.structuredContent);
    const reused = (await client.callTool({ name: 'create_todo', arguments: { ...args, text: 'Something else' } })) as ToolResult;
    expect(reused.isError).toBe(true);
    expect(reused.content[0].text).toMatch(/^IDEMPOTENCY_KEY_REUSED: /);
    await client.close();

    const { client: other } = await connectAgent();
    const elsewhere = (await other.callTool({ name: 'create_todo', arguments: args })) as ToolResult;
    expect(elsewhere.isError).toBeFalsy();
    expect(elsewhere.structuredContent.todo.id).not.toBe(first.structuredContent.todo.id);
    await other.close();
    const [{ count }] = await t.dataSource.query(`SELECT count(*)::int AS count FROM todos WHERE user_id = $1 AND category = 'oauth-idem'`, [user.id]);
    expect(count).toBe(2);
  });

  it('a read-only grant lists and calls only the reading tools; a write tool answers FORBIDDEN naming todos:write', async () => {
    const { client, agent } = await connectAgent({ untick: ['todos:write'] });
    expect(agent.savedTokens!.scope).toBe('todos:read');
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(['get_todo', 'list_categories', 'list_todos', 'list_webhook_deliveries', 'list_webhooks']);
    const read = (await client.callTool({ name: 'list_todos', arguments: {} })) as ToolResult;
    expect(read.isError).toBeFalsy();
    const write = (await client.callTool({ name: 'create_todo', arguments: { text: 'nope', priority: 1, category: 'x' } })) as ToolResult;
    expect(write.isError).toBe(true);
    expect(write.content[0].text).toMatch(/^FORBIDDEN: .*todos:write/);
    await client.close();
  });

  it('rotates refresh tokens; reusing a rotated one revokes the whole grant, its access tokens at once', async () => {
    const { client, agent } = await connectAgent();
    await client.close();
    const clientId = agent.information!.client_id;
    const first = agent.savedTokens!;
    const rotated = await tokenRequest({ grant_type: 'refresh_token', refresh_token: first.refresh_token!, client_id: clientId });
    expect(rotated.status).toBe(200);
    expect(rotated.body.refresh_token).toEqual(expect.any(String));
    expect(rotated.body.refresh_token).not.toBe(first.refresh_token);
    await mcpPost(rotated.body.access_token).expect(200);

    const reuse = await tokenRequest({ grant_type: 'refresh_token', refresh_token: first.refresh_token!, client_id: clientId });
    expect(reuse).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    // The grant is gone: the newest access token and refresh token stop working at once.
    const revoked = await mcpPost(rotated.body.access_token).expect(401);
    expect(revoked.headers['www-authenticate']).toMatch(/^Bearer /);
    await mcpPost(first.access_token).expect(401);
    const after = await tokenRequest({ grant_type: 'refresh_token', refresh_token: rotated.body.refresh_token, client_id: clientId });
    expect(after).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });

  it('revokes a refresh token (RFC 7009); the same subscription rule as an API key applies (402)', async () => {
    const { client, agent } = await connectAgent();
    await client.close();
    const clientId = agent.information!.client_id;
    const revoke = await fetch(`${base}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: agent.savedTokens!.refresh_token!, token_type_hint: 'refresh_token', client_id: clientId }),
    });
    expect(revoke.status).toBe(200);
    const refresh = await tokenRequest({ grant_type: 'refresh_token', refresh_token: agent.savedTokens!.refresh_token!, client_id: clientId });
    expect(refresh).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    // Revoking the refresh token ends its grant: the access tokens stop at once too.
    await mcpPost(agent.savedTokens!.access_token).expect(401);

    const second = await connectAgent();
    await second.client.close();
    await t.dataSource.query(`DELETE FROM subscriptions WHERE user_id = $1`, [user.id]);
    try {
      const lapsed = await mcpPost(second.agent.savedTokens!.access_token).expect(402);
      expect(lapsed.body.error.data.code).toBe('SUBSCRIPTION_REQUIRED');
    } finally {
      await grantBetaAccess(t.dataSource, user.id);
    }
  });

  /** Runs `steps` as a fresh owner with API access: `user`, whom connectAgent signs in, is them until `steps` end. */
  async function asFreshOwner(steps: (owner: TestUser) => Promise<void>): Promise<void> {
    const owner = await insertUser(t.dataSource);
    await grantBetaAccess(t.dataSource, owner.id);
    const previous = user;
    user = owner;
    try {
      await steps(owner);
    } finally {
      user = previous;
    }
  }

  it('lists connected apps under the account (and in its export); revoking one ends its tokens at once; account deletion removes them', async () => {
    await asFreshOwner(async (owner) => {
      const { client, agent } = await connectAgent({ untick: ['todos:write'] });
      await client.close();
      const jwt = await t.accessTokenFor(owner.id);
      const clientId = agent.information!.client_id;
      const listed = await t.http.get('/api/v1/account/connected-apps').set('Authorization', `Bearer ${jwt}`).expect(200);
      expect(listed.body.data.connectedApps).toEqual([
        { clientId, clientName: 'Test Agent', scopes: ['todos:read'], resources: [mcpUrl.href], connectedAt: expect.any(String) },
      ]);
      const exported = await t.http.get('/api/v1/account/export').set('Authorization', `Bearer ${jwt}`).expect(200);
      expect(exported.body.data.connectedApps).toEqual(listed.body.data.connectedApps);
      expect(JSON.stringify(exported.body)).not.toContain(agent.savedTokens!.refresh_token!);

      await mcpPost(agent.savedTokens!.access_token).expect(200);
      await t.http.delete(`/api/v1/account/connected-apps/${clientId}`).set('Authorization', `Bearer ${jwt}`).expect(200);
      const revoked = await mcpPost(agent.savedTokens!.access_token).expect(401);
      expect(revoked.body.error.data.code).toBe('INVALID_TOKEN');
      expect(await tokenRequest({ grant_type: 'refresh_token', refresh_token: agent.savedTokens!.refresh_token!, client_id: clientId })).toMatchObject({ status: 400 });
      await t.http.delete(`/api/v1/account/connected-apps/${clientId}`).set('Authorization', `Bearer ${jwt}`).expect(404);
      await t.http.get('/api/v1/account/connected-apps').set('Authorization', `Bearer ${jwt}`).expect(200, { success: true, data: { connectedApps: [] } });

      const again = await connectAgent();
      await again.client.close();
      await t.http.delete('/api/v1/account').set('Authorization', `Bearer ${jwt}`).send({ password: owner.password, confirmText: 'DELETE' }).expect(200);
      const left: Array<{ n: number }> = await t.dataSource.query(`SELECT count(*)::int AS n FROM oauth_records WHERE account_id = $1 OR payload->>'accountId' = $2`, [owner.id, owner.id]);
      expect(left[0].n).toBe(0);
      await mcpPost(again.agent.savedTokens!.access_token).expect(401);
    });
  });

  it('a password change and a password reset disconnect every connected app: its access and refresh tokens stop, and the answer names it', async () => {
    await asFreshOwner(async (owner) => {
      /** The connected app's access token and refresh token no longer work. */
      const expectDisconnected = async (agent: MemoryOAuthClient) => {
        const refused = await mcpPost(agent.savedTokens!.access_token).expect(401);
        expect(refused.body.error.data.code).toBe('INVALID_TOKEN');
        expect(await tokenRequest({ grant_type: 'refresh_token', refresh_token: agent.savedTokens!.refresh_token!, client_id: agent.information!.client_id })).toMatchObject({
          status: 400,
          body: { error: 'invalid_grant' },
        });
      };

      const connected = await connectAgent();
      await connected.client.close();
      await mcpPost(connected.agent.savedTokens!.access_token).expect(200);
      const jwt = await t.accessTokenFor(owner.id);
      const changed = await t.http
        .post('/api/v1/auth/change-password')
        .set('Authorization', `Bearer ${jwt}`)
        .send({ currentPassword: owner.password, newPassword: 'a-new-password-1', newPasswordConfirm: 'a-new-password-1' })
        .expect(200);
      expect(changed.body.data).toEqual({ message: expect.any(String), disconnectedApps: [{ clientId: connected.agent.information!.client_id, clientName: 'Test Agent' }] });
      await expectDisconnected(connected.agent);
      await t.http.get('/api/v1/account/connected-apps').set('Authorization', `Bearer ${await t.accessTokenFor(owner.id)}`).expect(200, { success: true, data: { connectedApps: [] } });

      owner.password = 'a-new-password-1';
      const reconnected = await connectAgent();
      await reconnected.client.close();
      await mcpPost(reconnected.agent.savedTokens!.access_token).expect(200);
      // The reset token as verify-reset-code hands it out (that step has its own suite).
      const resetToken = randomBytes(32).toString('base64url');
      await t.dataSource.query(`INSERT INTO password_reset_tokens (token_hash, user_id, expires_at) VALUES ($1, $2, now() + interval '15 minutes')`, [
        createHash('sha256').update(resetToken).digest('hex'),
        owner.id,
      ]);
      const reset = await t.http.post('/api/v1/auth/reset-password').send({ token: resetToken, password: 'a-newer-password-2', passwordConfirm: 'a-newer-password-2' }).expect(200);
      expect(reset.body.data.disconnectedApps).toEqual([{ clientId: reconnected.agent.information!.client_id, clientName: 'Test Agent' }]);
      await expectDisconnected(reconnected.agent);
      // Nothing of the account's is left at the authorization server (its sign-in there included).
      const left: Array<{ n: number }> = await t.dataSource.query(`SELECT count(*)::int AS n FROM oauth_records WHERE account_id = $1`, [owner.id]);
      expect(left[0].n).toBe(0);

      // Nothing connected: the published answer, as it was.
      const again = await t.http
        .post('/api/v1/auth/change-password')
        .set('Authorization', `Bearer ${await t.accessTokenFor(owner.id)}`)
        .send({ currentPassword: 'a-newer-password-2', newPassword: 'a-new-password-3', newPasswordConfirm: 'a-new-password-3' })
        .expect(200);
      expect(again.body.data).toEqual({ message: expect.any(String) });
    });
  });

  it('keeps no usable code or refresh token in the database (stored under their SHA-256)', async () => {
    const { client, agent } = await connectAgent();
    await client.close();
    const rows: Array<{ n: number }> = await t.dataSource.query(`SELECT count(*)::int AS n FROM oauth_records r WHERE r::text LIKE $1`, [`%${agent.savedTokens!.refresh_token}%`]);
    expect(rows[0].n).toBe(0);
  });
});
