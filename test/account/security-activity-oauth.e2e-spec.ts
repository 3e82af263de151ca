/**
 * The security activity log's connected-app entries (issue 29): an agent connects through the real OAuth flow
 * (the MCP SDK's client, the consent page driven in Chromium), then the owner disconnects it.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Browser } from 'playwright-core';
import { freePort, insertUser, launchBrowser, type TestUser } from '#libs/testing';
import { consentInBrowser } from '../oauth/support/consent-page.js';
import { MemoryOAuthClient } from '../oauth/support/memory-oauth-client.js';
import { grantBetaAccess } from '../support/api-access.js';
import { startWithDatabase, type TestApp } from '../support/test-apps.js';

describe('security activity log: connected apps', () => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let user: TestUser;
  const redirectUrl = 'http://127.0.0.1:9/agent/callback';

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    t = await startWithDatabase('todo-api', { PUBLIC_BASE_URL: base }, { port });
    browser = await launchBrowser();
    user = await insertUser(t.dataSource);
    await grantBetaAccess(t.dataSource, user.id);
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('records an app connected at the consent page and disconnected by the owner', async () => {
    const agent = new MemoryOAuthClient(redirectUrl, 'Activity Agent');
    const transport = new StreamableHTTPClientTransport(new URL(`${base}/api/v1/mcp`), { authProvider: agent });
    await expect(new Client({ name: 'agent', version: '1.0.0' }).connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);
    const { code } = await consentInBrowser(browser, agent.authorizationUrl!, redirectUrl, { email: user.email, password: user.password });
    await transport.finishAuth(code);
    const clientId = agent.information!.client_id;

    const jwt = await t.accessTokenFor(user.id);
    const activity = async () => (await t.http.get('/api/v1/account/activity').set('Authorization', `Bearer ${jwt}`).expect(200)).body.data.activity;
    const [connected] = await activity();
    expect(connected).toMatchObject({
      type: 'oauth_app_connected',
      ipAddress: expect.stringContaining('127.0.0.1'),
      userAgent: expect.any(String),
      details: { clientId, clientName: 'Activity Agent', scopes: expect.arrayContaining(['todos:read']) },
    });

    await t.http.delete(`/api/v1/account/connected-apps/${clientId}`).set('Authorization', `Bearer ${jwt}`).expect(200);
    expect((await activity()).map((entry: { type: string; details: unknown }) => [entry.type, entry.details])).toEqual([
      ['oauth_app_disconnected', { clientId }],
      ['oauth_app_connected', connected.details],
    ]);
  });
});
