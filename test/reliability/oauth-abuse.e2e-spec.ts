import { createHash, randomBytes } from 'node:crypto';
import { createServer as createTcpServer, type AddressInfo, type Server as TcpServer, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import supertest from 'supertest';
import { insertUser, type TestUser } from '#libs/testing';
import { OAuthRecordsRepository } from '../../libs/identity/src/oauth-server/oauth-records.repository.js';
import { OAUTH_UNUSED_CLIENT_TTL_MS, OAuthRecordsSweeper } from '../../libs/identity/src/oauth-server/oauth-records.sweeper.js';
import { grantBetaAccess } from '../support/api-access.js';
import { ClientMetadataDocuments, startMetadataFetchingApps } from '../support/client-metadata-documents.js';
import type { TestApp } from '../support/test-apps.js';
import { writeFigures } from './support/figures.js';

/**
 * The OAuth server's edges under abuse (issue 27, items 7, 8, 10, 11): it is no open redirector,
 * registration takes only safe and bounded metadata, unused clients expire, an unauthenticated
 * authorization request stores bounded data, client ID metadata documents are never fetched from
 * private space (nothing connects there) and refusals are not fetched again, /oauth/* is limited
 * per client address, and the consent page shows the whole redirect target and that the app's
 * name is unverified. Every abuse case sent is counted for the reliability summary.
 */
const ATTACKER_REDIRECT = 'https://attacker.example/cb';
const figures = { 'OAuth abuse cases sent': 0, 'OAuth abuse cases refused': 0, 'OAuth abuse cases accepted without refusal': 0, 'largest interaction row an unauthenticated request stores (bytes)': 0 };

/** Counts an abuse case: `refused` is what the test then asserts. */
function abuse(refused: boolean): boolean {
  figures['OAuth abuse cases sent']++;
  figures[refused ? 'OAuth abuse cases refused' : 'OAuth abuse cases accepted without refusal']++;
  return refused;
}

describe('OAuth server under abuse', () => {
  let t: TestApp;
  let strict: TestApp;
  let base: string;
  let user: TestUser;
  let clientId: string;
  let apps: Awaited<ReturnType<typeof startMetadataFetchingApps>>;
  const documents = new ClientMetadataDocuments();
  /** A TCP server on loopback that counts connections: the address guard must never reach it. */
  let listener: TcpServer;
  let listenerPort: number;
  let connections = 0;
  const sockets: Socket[] = [];

  const challenge = createHash('sha256').update(randomBytes(32).toString('base64url')).digest('base64url');
  const authorizeQuery = (client: string, extra: Record<string, string | undefined> = {}) =>
    Object.fromEntries(
      Object.entries({ client_id: client, redirect_uri: ATTACKER_REDIRECT, response_type: 'code', scope: 'todos:read', code_challenge: challenge, code_challenge_method: 'S256', resource: `${base}/api/v1/mcp`, state: 's1', ...extra }).filter(
        ([, value]) => value !== undefined,
      ),
    );
  const register = (app: TestApp, metadata: Record<string, unknown>) =>
    app.http.post('/oauth/register').send({ grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none', ...metadata });
  const interactionRows = async () => Number((await t.dataSource.query(`SELECT count(*)::int AS n FROM oauth_records WHERE model = 'Interaction'`))[0].n);
  /** Our error page, not a redirect to the client. */
  const onOurPage = (res: { status: number; headers: Record<string, string>; text: string }) => res.status === 400 && res.headers.location === undefined && res.text.includes('This sign-in cannot go on');

  beforeAll(async () => {
    await documents.start();
    listener = createTcpServer((socket) => {
      connections++;
      sockets.push(socket);
      socket.destroy();
    });
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    listenerPort = (listener.address() as AddressInfo).port;

    apps = await startMetadataFetchingApps();
    ({ t, strict, base } = apps);
    user = await insertUser(t.dataSource);
    await grantBetaAccess(t.dataSource, user.id);
    clientId = (await register(t, { client_name: 'Web Agent', redirect_uris: [ATTACKER_REDIRECT] }).expect(201)).body.client_id;
  });
  beforeEach(async () => {
    // Each case starts with fresh budgets (registration's 20 per hour, /oauth/*'s 120 per minute).
    await t.rateLimits.clear();
  });
  afterAll(async () => {
    writeFigures('oauth-abuse', figures);
    await apps?.close();
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => listener?.close(resolve));
    await documents.stop();
  });

  describe('not a redirector: errors before a signed-in user consented stay on our page', () => {
    it.each([
      ['prompt=none', { prompt: 'none' }],
      ['a missing PKCE challenge', { code_challenge: undefined, code_challenge_method: undefined }],
      ['a plain PKCE method', { code_challenge_method: 'plain' }],
      ['a bad resource', { resource: 'https://elsewhere.example/' }],
      ['a malformed PKCE challenge', { code_challenge: 'short' }],
      ['an unsupported response type', { response_type: 'token' }],
    ])('%s answers our error page, not 303 to the redirect_uri', async (_name, extra) => {
      const res = await t.http.get('/oauth/authorize').query(authorizeQuery(clientId, extra));
      expect(abuse(onOurPage(res)) ? 'our page' : [res.status, res.headers.location, res.text.slice(0, 300)]).toBe('our page');
      expect(res.headers['content-security-policy']).toContain("default-src 'none'");
    });

    it('a browser whose signed-in user consented to the client gets its errors redirected (the user confirmed that redirect URI)', async () => {
      const browser = supertest.agent(t.app.getHttpServer());
      const start = await browser.get('/oauth/authorize').query(authorizeQuery(clientId)).expect(303);
      const interaction = new URL(start.headers.location, base).pathname;
      const submitted = await browser.post(interaction).type('form').send({ email: user.email, password: user.password, scope: 'todos:read', decision: 'allow' }).expect(303);
      const resumed = await browser.get(new URL(submitted.headers.location, base).pathname).expect(303);
      expect(new URL(resumed.headers.location).searchParams.get('code')).toBeTruthy();

      const error = await browser.get('/oauth/authorize').query(authorizeQuery(clientId, { resource: 'https://elsewhere.example/' })).expect(303);
      const back = new URL(error.headers.location);
      expect([`${back.origin}${back.pathname}`, back.searchParams.get('error')]).toEqual([ATTACKER_REDIRECT, 'invalid_target']);
      // Another browser (no session) asking the same gets our page.
      expect(onOurPage(await t.http.get('/oauth/authorize').query(authorizeQuery(clientId, { resource: 'https://elsewhere.example/' })))).toBe(true);
    });
  });

  describe('registration', () => {
    it.each([
      ['plain http to another host (web client)', 'invalid_redirect_uri', { redirect_uris: ['http://attacker.example/cb'] }],
      ['plain http to another host (native client)', 'invalid_redirect_uri', { application_type: 'native', redirect_uris: ['http://attacker.example/cb'] }],
      ['a javascript: URI', 'invalid_redirect_uri', { application_type: 'native', redirect_uris: ['javascript:alert(1)'] }],
      ['a data: URI', 'invalid_redirect_uri', { application_type: 'native', redirect_uris: ['data:text/html,hi'] }],
      ['a custom scheme that is not reverse-domain (intent:)', 'invalid_redirect_uri', { application_type: 'native', redirect_uris: ['intent://x#Intent;end'] }],
      ['a custom scheme for a web client', 'invalid_redirect_uri', { redirect_uris: ['com.example.agent:/cb'] }],
      ['a 200,000-character client_name', 'invalid_client_metadata', { client_name: 'n'.repeat(200_000), redirect_uris: [ATTACKER_REDIRECT] }],
      ['5,000 redirect_uris', 'invalid_client_metadata', { redirect_uris: Array.from({ length: 5000 }, (_, i) => `https://agent.example/cb/${i}`) }],
      ['a 3,000-character redirect URI', 'invalid_redirect_uri', { redirect_uris: [`https://agent.example/${'p'.repeat(3000)}`] }],
      ['metadata over 8 KiB in all', 'invalid_client_metadata', { redirect_uris: Array.from({ length: 10 }, (_, i) => `https://agent.example/${i}/${'p'.repeat(1000)}`) }],
    ])('refuses %s with 400 %s and stores nothing', async (_name, error, metadata) => {
      const before = Number((await t.dataSource.query(`SELECT count(*)::int AS n FROM oauth_records WHERE model = 'Client'`))[0].n);
      const res = await register(t, metadata);
      expect(abuse(res.status === 400 && res.body.error === error)).toBe(true);
      expect(res.body.error_description).toEqual(expect.any(String));
      expect(Number((await t.dataSource.query(`SELECT count(*)::int AS n FROM oauth_records WHERE model = 'Client'`))[0].n)).toBe(before);
    });

    it.each([
      ['https (web)', {}, ['https://agent.example/cb']],
      ['loopback http 127.0.0.1 (the MCP clients that declare no type)', {}, ['http://127.0.0.1:33418/callback']],
      ['loopback http [::1] (native)', { application_type: 'native' }, ['http://[::1]:33418/callback']],
      ['loopback http localhost (native)', { application_type: 'native' }, ['http://localhost:33418/callback']],
      ['a reverse-domain private-use scheme (native)', { application_type: 'native' }, ['com.example.agent:/oauth/callback']],
    ])('accepts %s', async (_name, extra, redirectUris) => {
      await register(t, { client_name: 'Fine Agent', redirect_uris: redirectUris, ...extra }).expect(201);
    });

    it('a registered client no grant holds is deleted a day after registering; one with a grant stays', async () => {
      const unused = (await register(t, { client_name: 'Unused', redirect_uris: [ATTACKER_REDIRECT] }).expect(201)).body.client_id as string;
      const used = (await register(t, { client_name: 'Used', redirect_uris: [ATTACKER_REDIRECT] }).expect(201)).body.client_id as string;
      await t.app.get(OAuthRecordsRepository).upsert('Grant', `grant-of-${used}`, { accountId: user.id, clientId: used }, new Date(Date.now() + 3600_000));
      const sweeper = t.app.get(OAuthRecordsSweeper);
      // Not yet a day old: kept.
      await sweeper.sweepUnusedClients(new Date());
      const ids = async () => ((await t.dataSource.query(`SELECT id FROM oauth_records WHERE model = 'Client' AND id IN ($1, $2) ORDER BY id`, [unused, used])) as Array<{ id: string }>).map((row) => row.id);
      expect(await ids()).toEqual([unused, used].sort());
      expect(await sweeper.sweepUnusedClients(new Date(Date.now() + OAUTH_UNUSED_CLIENT_TTL_MS + 60_000))).toBeGreaterThanOrEqual(1);
      expect(await ids()).toEqual([used]);
      expect(abuse(onOurPage(await t.http.get('/oauth/authorize').query(authorizeQuery(unused))))).toBe(true);
    });
  });

  describe('an unauthenticated authorization request stores bounded data', () => {
    it.each([
      ['a 14 KB state', { state: 's'.repeat(14_000) }],
      ['a 513-character state', { state: 's'.repeat(513) }],
      ['a 3,000-character parameter', { nonce: 'n'.repeat(3000) }],
      ['parameters over 4 KiB in all', { nonce: 'n'.repeat(2000), login_hint: 'l'.repeat(2000), state: 's'.repeat(500) }],
    ])('refuses %s on our page and stores no interaction', async (_name, extra) => {
      const before = await interactionRows();
      const res = await t.http.get('/oauth/authorize').query(authorizeQuery(clientId, extra));
      expect(abuse(onOurPage(res))).toBe(true);
      expect(await interactionRows()).toBe(before);
    });

    it('refuses a POST authorization request over 4 KiB', async () => {
      const before = await interactionRows();
      const res = await t.http.post('/oauth/authorize').type('form').send(authorizeQuery(clientId, { state: 's'.repeat(5000) }));
      expect(abuse(onOurPage(res))).toBe(true);
      expect(await interactionRows()).toBe(before);
    });

    it('a request just within the limits (512-character state) still starts a sign-in, and its stored row stays small', async () => {
      const res = await t.http.get('/oauth/authorize').query(authorizeQuery(clientId, { state: 's'.repeat(512), scope: 'openid todos:read', nonce: 'n'.repeat(2000), login_hint: 'l'.repeat(1000) }));
      expect([res.status, res.status === 303 ? '' : res.text.slice(-400)]).toEqual([303, '']);
      const uid = /^\/oauth\/interaction\/([^/?]+)$/.exec(res.headers.location)![1];
      const [row] = (await t.dataSource.query(`SELECT octet_length(payload::text) AS bytes FROM oauth_records WHERE model = 'Interaction' AND id = $1`, [uid])) as Array<{ bytes: number }>;
      figures['largest interaction row an unauthenticated request stores (bytes)'] = Number(row.bytes);
      expect(Number(row.bytes)).toBeLessThan(6000);
    });
  });

  describe('client ID metadata documents never reach private space', () => {
    it.each([
      ['a loopback address', () => `https://127.0.0.1:${listenerPort}/agent.json`],
      ['a name resolving to loopback', () => `https://localhost:${listenerPort}/agent.json`],
      ['an IPv4-mapped loopback address', () => `https://[::ffff:127.0.0.1]:${listenerPort}/agent.json`],
      ['a decimal loopback address', () => `https://2130706433:${listenerPort}/agent.json`],
    ])('refuses %s without connecting (no TCP handshake)', async (_name, url) => {
      const before = connections;
      const res = await strict.http.get('/oauth/authorize').query(authorizeQuery(url()));
      expect(abuse(res.status === 400 && res.text.includes('invalid_client') && connections === before)).toBe(true);
      // Give a late connection the time to arrive before concluding.
      await sleep(50);
      expect(connections).toBe(before);
    });

    it.each([
      ['the cloud metadata service (link-local)', 'https://169.254.169.254/latest/agent.json'],
      ['a private address', 'https://10.0.0.1/agent.json'],
      ['a CGNAT address', 'https://100.64.0.1/agent.json'],
      ['a unique-local IPv6 address', 'https://[fd00::1]/agent.json'],
    ])('refuses %s at once (no connection attempt to time out)', async (_name, url) => {
      const started = performance.now();
      const res = await strict.http.get('/oauth/authorize').query(authorizeQuery(url));
      expect(abuse(res.status === 400 && res.text.includes('invalid_client'))).toBe(true);
      expect(performance.now() - started).toBeLessThan(1000);
    });

    it('a refused document is not fetched again on the next request', async () => {
      const path = '/agents/not-json.json';
      const url = documents.serve(path, 'not json');
      for (let i = 0; i < 3; i++) expect(abuse(onOurPage(await t.http.get('/oauth/authorize').query(authorizeQuery(url))))).toBe(true);
      expect(documents.served[path].hits).toBe(1);
    });
  });

  it('/oauth/* is limited per client address (429 over the budget)', async () => {
    await t.http.get('/oauth/jwks').expect(200);
    const [key] = await t.rateLimits.keys('oauth:');
    expect(key).toBeDefined();
    await t.rateLimits.set(key, 120);
    const res = await t.http.get('/oauth/authorize').query(authorizeQuery(clientId));
    expect(abuse(res.status === 429)).toBe(true);
    expect(res.headers['retry-after']).toEqual(expect.any(String));
    await t.http.get('/oauth/interaction/anything').expect(429);
  });

  it('the consent page shows the whole redirect target of a custom-scheme URI and marks the name as unverified', async () => {
    const redirect = 'com.example.agent:/oauth/callback';
    const native = (await register(t, { client_name: 'Official Bank App', application_type: 'native', redirect_uris: [redirect] }).expect(201)).body.client_id as string;
    const browser = supertest.agent(t.app.getHttpServer());
    const start = await browser.get('/oauth/authorize').query(authorizeQuery(native, { redirect_uri: redirect })).expect(303);
    const page = await browser.get(new URL(start.headers.location, base).pathname).expect(200);
    expect(page.text).toContain(`<span class="host" id="redirect-target">${redirect}</span>`);
    expect(page.text).toMatch(/id="client-name-unverified">The name “Official Bank App” is what the app calls itself: we have not verified it/);
    expect(page.headers['content-security-policy']).toContain("form-action 'self' com.example.agent:");
  });
});
