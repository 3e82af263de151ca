import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import supertest from 'supertest';
import { freePort, insertUser, type TestUser } from '#libs/testing';
import { OAuthSigningKeyRotation } from '../../libs/identity/src/oauth-server/oauth-signing-key-rotation.service.js';
import { startApp, startWithDatabase, type TestApp } from '../support/test-apps.js';
import { grantBetaAccess } from '../support/api-access.js';

const MCP_ACCEPT = 'application/json, text/event-stream';
const REDIRECT = 'http://127.0.0.1:9/agent/callback';

/**
 * The ES256 signing key of access tokens is replaced without failing the tokens already out: the
 * newest key signs, the previous one still verifies (on every replica, including one that has not
 * switched yet) until it is retired, after every token it signed has expired.
 */
describe('OAuth signing-key rotation', () => {
  let a: TestApp;
  let b: TestApp;
  let base: string;
  let user: TestUser;
  let clientId: string;

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    a = await startWithDatabase('todo-api', { PUBLIC_BASE_URL: base }, { port });
    b = await startApp('todo-api', (a as TestApp & { database: { url: string } }).database.url, { PUBLIC_BASE_URL: base });
    user = await insertUser(a.dataSource);
    await grantBetaAccess(a.dataSource, user.id);
    const registered = await a.http
      .post('/oauth/register')
      .send({ client_name: 'Rotation Agent', redirect_uris: [REDIRECT], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' })
      .expect(201);
    clientId = registered.body.client_id;
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  /** An access token from replica A's authorization server, through sign-in and consent. */
  async function accessToken(): Promise<string> {
    return (await tokens()).access_token;
  }

  /** The token response of replica A's authorization server, through sign-in and consent. */
  async function tokens(scope = 'todos:read', client = clientId): Promise<{ access_token: string; id_token?: string }> {
    const verifier = randomBytes(32).toString('base64url');
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const browser = supertest.agent(a.app.getHttpServer());
    const query = { client_id: client, redirect_uri: REDIRECT, response_type: 'code', scope, code_challenge: challenge, code_challenge_method: 'S256', resource: `${base}/api/v1/mcp` };
    const start = await browser.get('/oauth/authorize').query(query).expect(303);
    const interaction = new URL(start.headers.location, base).pathname;
    const submitted = await browser.post(interaction).type('form').send({ email: user.email, password: user.password, scope: 'todos:read', decision: 'allow' }).expect(303);
    const resumed = await browser.get(new URL(submitted.headers.location, base).pathname).expect(303);
    const code = new URL(resumed.headers.location).searchParams.get('code')!;
    const response = await a.http
      .post('/oauth/token')
      .type('form')
      .send({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, client_id: client, code_verifier: verifier, resource: `${base}/api/v1/mcp` })
      .expect(200);
    return response.body;
  }

  const mcpStatus = async (app: TestApp, token: string) =>
    (await app.http.post('/api/v1/mcp').set('Authorization', `Bearer ${token}`).set('Accept', MCP_ACCEPT).send({ jsonrpc: '2.0', id: 1, method: 'ping' })).status;
  const kidOf = (token: string) => decodeProtectedHeader(token).kid;
  const publishedKids = async (alg = 'ES256') =>
    ((await a.http.get('/oauth/jwks').expect(200)).body.keys as Array<{ kid: string; alg: string }>).filter((key) => key.alg === alg).map((key) => key.kid);
  const storedKeys = async (alg = 'ES256') =>
    (await a.dataSource.query(`SELECT kid FROM oauth_signing_keys WHERE jwk->>'alg' = $1 ORDER BY created_at DESC`, [alg])).map((row: { kid: string }) => row.kid);

  it('signs with a new key once the newest is too old, still accepts the previous one everywhere, and retires it after its tokens expired', async () => {
    const before = await accessToken();
    const first = kidOf(before);
    expect(await publishedKids()).toEqual([first]);
    const [firstRsa] = await storedKeys('RS256');
    expect(firstRsa).toEqual(expect.any(String));
    expect(await publishedKids('RS256')).toEqual([firstRsa]);
    // Replica B verifies with the only key it knows.
    expect(await mcpStatus(b, before)).toBe(200);

    // The key is past its age: replica A's check adds a new one and switches to it.
    await a.dataSource.query(`UPDATE oauth_signing_keys SET created_at = now() - interval '31 days'`);
    await a.app.get(OAuthSigningKeyRotation).check();
    const [second] = await storedKeys();
    expect(second).not.toBe(first);
    expect(await storedKeys()).toEqual([second, first]);
    expect(await publishedKids()).toEqual([second, first]);
    // The ID tokens' RS256 key rotates with it.
    const [secondRsa] = await storedKeys('RS256');
    expect(await storedKeys('RS256')).toEqual([secondRsa, firstRsa]);
    expect(await publishedKids('RS256')).toEqual([secondRsa, firstRsa]);

    // A check by another replica at the same time adds no third key.
    await b.app.get(OAuthSigningKeyRotation).check();
    expect(await storedKeys()).toEqual([second, first]);
    expect(await storedKeys('RS256')).toEqual([secondRsa, firstRsa]);

    const after = await accessToken();
    expect(kidOf(after)).toBe(second);
    // Both tokens work on both replicas.
    for (const app of [a, b]) {
      expect(await mcpStatus(app, before)).toBe(200);
      expect(await mcpStatus(app, after)).toBe(200);
    }

    // The new key has signed for longer than an access token lives (and a check interval): the previous one goes.
    await a.dataSource.query(`UPDATE oauth_signing_keys SET created_at = now() - interval '3 hours' WHERE kid IN ($1, $2)`, [second, secondRsa]);
    await a.app.get(OAuthSigningKeyRotation).check();
    expect(await storedKeys()).toEqual([second]);
    expect(await publishedKids()).toEqual([second]);
    expect(await storedKeys('RS256')).toEqual([secondRsa]);
    expect(await publishedKids('RS256')).toEqual([secondRsa]);
    expect(await mcpStatus(a, before)).toBe(401);
    expect(await mcpStatus(a, after)).toBe(200);
  });

  it('retires a compromised key at once by deleting its row: its tokens are refused on every replica, and no replica signs with or publishes it any more', async () => {
    const [previous] = await storedKeys();
    const before = await accessToken();
    expect(kidOf(before)).toBe(previous);
    // A new key signs; replica B has verified a token of it (so holds it in memory) and switched to it too.
    await a.dataSource.query(`UPDATE oauth_signing_keys SET created_at = now() - interval '31 days'`);
    await a.app.get(OAuthSigningKeyRotation).check();
    await b.app.get(OAuthSigningKeyRotation).check();
    const compromised = await accessToken();
    const leaked = kidOf(compromised);
    expect(leaked).not.toBe(previous);
    for (const app of [a, b]) expect(await mcpStatus(app, compromised)).toBe(200);

    // The documented retirement: delete the row. No check, no restart.
    await a.dataSource.query(`DELETE FROM oauth_signing_keys WHERE kid = $1`, [leaked]);
    for (const app of [a, b]) {
      expect(await mcpStatus(app, compromised)).toBe(401);
      expect(await mcpStatus(app, before)).toBe(200);
      const published = ((await app.http.get('/oauth/jwks').expect(200)).body.keys as Array<{ kid: string }>).map((key) => key.kid);
      expect(published).not.toContain(leaked);
    }
    const fresh = await accessToken();
    expect(kidOf(fresh)).not.toBe(leaked);
    for (const app of [a, b]) expect(await mcpStatus(app, fresh)).toBe(200);
  });

  it('ID tokens (OpenID Connect): RS256 unless the client registered for ES256, offered in discovery, verifiable with the published keys', async () => {
    const discovery = (await a.http.get('/.well-known/openid-configuration').expect(200)).body;
    // OpenID Connect Discovery 1.0 §3: RS256 MUST be included.
    expect(discovery.id_token_signing_alg_values_supported).toEqual(['RS256', 'ES256']);
    const jwks = createLocalJWKSet((await a.http.get('/oauth/jwks').expect(200)).body);

    const { id_token: byDefault } = await tokens('openid todos:read');
    expect(decodeProtectedHeader(byDefault!).alg).toBe('RS256');
    expect((await jwtVerify(byDefault!, jwks, { issuer: base, audience: clientId, algorithms: ['RS256'] })).payload.sub).toBe(user.id);

    const ecClient = (
      await a.http
        .post('/oauth/register')
        .send({ client_name: 'EC Agent', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none', id_token_signed_response_alg: 'ES256' })
        .expect(201)
    ).body.client_id;
    const { id_token: byChoice } = await tokens('openid todos:read', ecClient);
    expect(decodeProtectedHeader(byChoice!).alg).toBe('ES256');
    expect((await jwtVerify(byChoice!, jwks, { issuer: base, audience: ecClient, algorithms: ['ES256'] })).payload.sub).toBe(user.id);
  });

  it('refuses a token naming a kid that no stored key has', async () => {
    const token = await accessToken();
    const [header, payload, signature] = token.split('.');
    const forged = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(header, 'base64url').toString()), kid: 'unknown-kid' })).toString('base64url');
    expect(await mcpStatus(b, `${forged}.${payload}.${signature}`)).toBe(401);
    expect(await mcpStatus(b, token)).toBe(200);
  });
});
