import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import supertest from 'supertest';
import { ConfigError, loadConfig } from '#libs/config';
import { insertUser, type TestUser } from '#libs/testing';
import { ClientMetadataDocuments, startMetadataFetchingApps } from '../support/client-metadata-documents.js';
import { testEnv, type TestApp } from '../support/test-apps.js';
import { grantBetaAccess } from '../support/api-access.js';

const MCP_ACCEPT = 'application/json, text/event-stream';
const REDIRECT = 'http://127.0.0.1:9/agent/callback';

/**
 * An agent that never registered signs in with its client ID metadata document: its client_id is
 * the https URL of a JSON document the authorization server fetches and validates. The documents
 * are served by a server this test starts on 127.0.0.1; the app reads them over http through the
 * test-only switch OAUTH_CLIENT_METADATA_LOOPBACK (production refuses it, and without it the
 * server never fetches from a loopback or private address).
 */
describe('client ID metadata documents (URL client ids)', () => {
  let t: TestApp;
  let strict: TestApp;
  let base: string;
  let user: TestUser;
  let apps: Awaited<ReturnType<typeof startMetadataFetchingApps>>;
  const documents = new ClientMetadataDocuments({ 'Cache-Control': 'max-age=600' });
  const clientDocument = (clientId: string, extra: Record<string, unknown> = {}) => ({
    client_id: clientId,
    client_name: 'Metadata Agent',
    redirect_uris: [REDIRECT],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    ...extra,
  });

  beforeAll(async () => {
    await documents.start();
    apps = await startMetadataFetchingApps();
    ({ t, strict, base } = apps);
    user = await insertUser(t.dataSource);
    await grantBetaAccess(t.dataSource, user.id);
  });
  afterAll(async () => {
    await apps?.close();
    await documents.stop();
  });

  function authorizeQuery(clientId: string, challenge: string, redirectUri = REDIRECT) {
    return { client_id: clientId, redirect_uri: redirectUri, response_type: 'code', scope: 'todos:read', code_challenge: challenge, code_challenge_method: 'S256', resource: `${base}/api/v1/mcp`, state: 's1' };
  }

  it('advertises client_id_metadata_document_supported in the authorization server metadata', async () => {
    const metadata = (await t.http.get('/.well-known/oauth-authorization-server').expect(200)).body;
    expect(metadata.client_id_metadata_document_supported).toBe(true);
  });

  it('signs in end to end with a URL client id: authorize, sign-in and consent, code for a token, MCP call; the document is fetched once', async () => {
    const clientId = documents.serve('/agents/good.json', {});
    documents.served['/agents/good.json'].body = JSON.stringify(clientDocument(clientId));
    const verifier = randomBytes(32).toString('base64url');
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const browser = supertest.agent(t.app.getHttpServer());

    const start = await browser.get('/oauth/authorize').query(authorizeQuery(clientId, challenge)).expect(303);
    const interaction = new URL(start.headers.location, base).pathname;
    expect(interaction).toMatch(/^\/oauth\/interaction\//);
    const page = await browser.get(interaction).expect(200);
    expect(page.text).toContain('Metadata Agent');
    const submitted = await browser.post(interaction).type('form').send({ email: user.email, password: user.password, scope: 'todos:read', decision: 'allow' }).expect(303);
    const resumed = await browser.get(new URL(submitted.headers.location, base).pathname).expect(303);
    const back = new URL(resumed.headers.location);
    expect(`${back.origin}${back.pathname}`).toBe(REDIRECT);
    const code = back.searchParams.get('code')!;
    expect(code).toBeTruthy();

    const tokens = await t.http
      .post('/oauth/token')
      .type('form')
      .send({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, client_id: clientId, code_verifier: verifier, resource: `${base}/api/v1/mcp` })
      .expect(200);
    const listed = await t.http
      .post('/api/v1/mcp')
      .set('Authorization', `Bearer ${tokens.body.access_token}`)
      .set('Accept', MCP_ACCEPT)
      .send({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} })
      .expect(200);
    expect(listed.body.result.tools.map((tool: { name: string }) => tool.name)).toContain('list_todos');
    // Cached (Cache-Control max-age, within the server's bounds): the whole flow fetched the document once.
    expect(documents.served['/agents/good.json'].hits).toBe(1);

    // Connected apps names it as its document did at consent (it is not a registered client: no Client row holds the name).
    const jwt = await t.accessTokenFor(user.id);
    const apps = await t.http.get('/api/v1/account/connected-apps').set('Authorization', `Bearer ${jwt}`).expect(200);
    expect(apps.body.data.connectedApps).toEqual([{ clientId, clientName: 'Metadata Agent', scopes: ['todos:read'], resources: [`${base}/api/v1/mcp`], connectedAt: expect.any(String) }]);
  });

  it.each([
    ['a document whose client_id is another URL', (url: string) => clientDocument(`${url}-other`), 'invalid_client_metadata'],
    ['a document with a client secret', (url: string) => clientDocument(url, { client_secret: 'shh', token_endpoint_auth_method: 'client_secret_post' }), 'invalid_client_metadata'],
    ['a document without redirect_uris', (url: string) => clientDocument(url, { redirect_uris: [] }), 'invalid_redirect_uri'],
    ['a document over the size limit (5 KiB)', (url: string) => clientDocument(url, { client_name: 'x'.repeat(6000) }), 'invalid_client'],
    ['a document that is not JSON', () => 'not json', 'invalid_client'],
  ])('refuses %s (no sign-in page)', async (name, make, error) => {
    const path = `/agents/${name.replace(/\W+/g, '-')}.json`;
    const clientId = documents.serve(path, {});
    const document = make(clientId);
    documents.served[path].body = typeof document === 'string' ? document : JSON.stringify(document);
    const res = await t.http.get('/oauth/authorize').query(authorizeQuery(clientId, 'x'.repeat(43)));
    expect([res.status, res.text.includes(`<strong>${error}</strong>`) ? error : res.text]).toEqual([400, error]);
    // Fetched once (a refusal is then kept for a while: test/reliability/oauth-abuse checks it is not fetched again).
    expect(documents.served[path].hits).toBe(1);
  });

  it('refuses a redirect_uri the document does not list', async () => {
    const clientId = documents.serve('/agents/redirects.json', {});
    documents.served['/agents/redirects.json'].body = JSON.stringify(clientDocument(clientId));
    const res = await t.http.get('/oauth/authorize').query(authorizeQuery(clientId, 'x'.repeat(43), 'http://127.0.0.1:9/elsewhere'));
    expect(res.status).toBe(400);
    expect(res.text).toMatch(/redirect_uri/);
  });

  // The address guard (guardedFetch, #libs/common) refuses loopback before connecting; this shows that
  // the switch is what lets the test's documents through (test/reliability/oauth-abuse counts TCP
  // connections to show that nothing connects).
  it('without the test switch a loopback document is refused (the document server sees no request)', async () => {
    const clientId = documents.serve('/agents/strict.json', {});
    documents.served['/agents/strict.json'].body = JSON.stringify(clientDocument(clientId));
    const res = await strict.http.get('/oauth/authorize').query(authorizeQuery(clientId, 'x'.repeat(43)));
    expect(res.status).toBe(400);
    expect(res.text).toMatch(/invalid_client/);
    expect(documents.served['/agents/strict.json'].hits).toBe(0);
  });

  it('refuses the test switch in production', () => {
    expect(() => loadConfig(testEnv({ NODE_ENV: 'production', BCRYPT_COST: '12', OAUTH_CLIENT_METADATA_LOOPBACK: 'true', JWT_SECRET: 'x'.repeat(64) }))).toThrow(
      new ConfigError('OAUTH_CLIENT_METADATA_LOOPBACK', 'is a test switch and is refused when NODE_ENV=production'),
    );
    expect(loadConfig(testEnv({ OAUTH_CLIENT_METADATA_LOOPBACK: 'true' })).oauthClientMetadataLoopback).toBe(true);
    expect(loadConfig(testEnv()).oauthClientMetadataLoopback).toBe(false);
  });
});
