import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startApp, startWithDatabase, type TestApp } from '../support/test-apps.js';

/**
 * The discovery documents an agent reads before signing in, checked against the REQUIRED fields of
 * their specifications: RFC 8414 §2/§3.3 (authorization server metadata), OpenID Connect Discovery
 * 1.0 §3 (served too), RFC 9728 §2/§3.3 (protected resource metadata, on both MCP endpoints), and
 * the MCP authorization specification (2025-11-25: PKCE S256 advertised, authorization_servers
 * listed, client ID metadata documents). Requests arrive as through the production proxy: public
 * Host, X-Forwarded-Proto https.
 */
const ISSUER = 'https://todo.example.test';
const FEEDBACK = 'https://feedback.example.test';
// The production shape: a TLS-terminating gateway in front (TRUST_PROXY), public hosts.
const env = { PUBLIC_BASE_URL: ISSUER, FEEDBACK_PUBLIC_BASE_URL: FEEDBACK, TRUST_PROXY: '127.0.0.1' };

/** A URL the RFCs accept for an issuer or endpoint: https, no fragment; an issuer also has no query (RFC 8414 §2). */
function expectHttpsUrl(value: unknown, { issuer = false } = {}): URL {
  expect(typeof value).toBe('string');
  const url = new URL(value as string);
  expect(url.protocol).toBe('https:');
  expect(url.hash).toBe('');
  if (issuer) expect(url.search).toBe('');
  return url;
}

describe('OAuth discovery documents against their specifications', () => {
  let todo: TestApp;
  let feedback: TestApp;

  beforeAll(async () => {
    todo = await startWithDatabase('todo-api', env);
    feedback = await startApp('feedback-export', (todo as TestApp & { database: { url: string } }).database.url, env);
  });
  afterAll(async () => {
    await feedback?.close();
    await todo?.close();
  });

  /** A GET as the public URL's host sends it through the TLS-terminating proxy. */
  const publicGet = (app: TestApp, url: string) => {
    const { host, pathname, search } = new URL(url);
    return app.http.get(`${pathname}${search}`).set('Host', host).set('X-Forwarded-Proto', 'https');
  };
  const publicPost = (app: TestApp, url: string) => {
    const { host, pathname } = new URL(url);
    return app.http.post(pathname).set('Host', host).set('X-Forwarded-Proto', 'https').type('form').send('');
  };
  const appFor = (url: string) => (new URL(url).origin === ISSUER ? todo : feedback);

  async function authorizationServerMetadata(): Promise<Record<string, any>> {
    // RFC 8414 §3: the well-known URL of an issuer without a path.
    const res = await publicGet(todo, `${ISSUER}/.well-known/oauth-authorization-server`).expect(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    return res.body;
  }

  it('RFC 8414: issuer identical to the issuer identifier; REQUIRED endpoints and response types; every endpoint https under the issuer', async () => {
    const metadata = await authorizationServerMetadata();
    expect(metadata.issuer).toBe(ISSUER); // §3.3: identical to the issuer the URL was built from
    expectHttpsUrl(metadata.issuer, { issuer: true });
    // §2 REQUIRED: authorization_endpoint and token_endpoint (the code grant is supported), response_types_supported.
    for (const field of ['authorization_endpoint', 'token_endpoint', 'response_types_supported']) expect(metadata).toHaveProperty(field);
    expect(metadata.response_types_supported).toContain('code');
    // OAuth 2.1: no implicit or password grant.
    expect(metadata.grant_types_supported).toEqual(expect.arrayContaining(['authorization_code', 'refresh_token']));
    expect(metadata.grant_types_supported).not.toEqual(expect.arrayContaining(['implicit']));
    expect(metadata.grant_types_supported).not.toEqual(expect.arrayContaining(['password']));
    const endpoints = Object.entries(metadata).filter(([field]) => field.endsWith('_endpoint') || field === 'jwks_uri');
    expect(endpoints.length).toBeGreaterThanOrEqual(5);
    for (const [field, value] of endpoints) {
      const url = expectHttpsUrl(value);
      expect([field, url.origin]).toEqual([field, ISSUER]);
    }
  });

  it('endpoint URLs come from the issuer, never from the request: a forged Host, X-Forwarded-Host or proto cannot point an agent (or a cache) elsewhere', async () => {
    for (const forged of [
      { Host: 'evil.example', 'X-Forwarded-Proto': 'https' },
      { Host: 'todo.example.test', 'X-Forwarded-Host': 'evil.example', 'X-Forwarded-Proto': 'https' },
      { Host: 'todo.example.test', 'X-Forwarded-Proto': 'http' },
    ]) {
      const res = await todo.http.get('/.well-known/oauth-authorization-server').set(forged).expect(200);
      const endpoints = Object.entries(res.body).filter(([field]) => field.endsWith('_endpoint') || field === 'jwks_uri');
      expect(endpoints.length).toBeGreaterThanOrEqual(5);
      for (const [field, value] of endpoints) expect([forged, field, new URL(value as string).origin]).toEqual([forged, field, ISSUER]);
    }
  });

  it('advertises only endpoints that exist: none of them answers 404', async () => {
    const metadata = await authorizationServerMetadata();
    const endpoints = Object.entries(metadata).filter(([field]) => field.endsWith('_endpoint') || field === 'jwks_uri');
    for (const [field, value] of endpoints) {
      // Endpoints a browser visits take GET; the others (token, registration, revocation, …) POST.
      const status = ['authorization_endpoint', 'jwks_uri'].includes(field) ? (await publicGet(todo, value as string)).status : (await publicPost(todo, value as string)).status;
      expect([field, status === 404]).toEqual([field, false]);
    }
  });

  it('MCP authorization: PKCE S256 (and not plain), public clients (auth method none), registration, the resources\' scopes', async () => {
    const metadata = await authorizationServerMetadata();
    expect(metadata.code_challenge_methods_supported).toContain('S256');
    expect(metadata.code_challenge_methods_supported).not.toContain('plain');
    expect(metadata.token_endpoint_auth_methods_supported).toContain('none');
    expectHttpsUrl(metadata.registration_endpoint);
    expect(metadata.scopes_supported).toEqual(expect.arrayContaining(['todos:read', 'todos:write']));
    // RFC 9207: the authorization response names its issuer (mix-up defence).
    expect(metadata.authorization_response_iss_parameter_supported).toBe(true);
  });

  it('serves a JWKS of public keys only (no private parameters), each with kid and alg', async () => {
    const metadata = await authorizationServerMetadata();
    const { keys } = (await publicGet(todo, metadata.jwks_uri).expect(200)).body;
    expect(keys.length).toBeGreaterThan(0);
    for (const key of keys) {
      for (const secret of ['d', 'p', 'q', 'dp', 'dq', 'qi', 'k']) expect(key).not.toHaveProperty(secret);
      expect(key).toMatchObject(key.alg === 'RS256' ? { kid: expect.any(String), kty: 'RSA', use: 'sig' } : { kid: expect.any(String), alg: 'ES256', kty: 'EC', crv: 'P-256', use: 'sig' });
    }
    // ES256 signs access tokens (and ID tokens that ask for it); RS256 other ID tokens.
    expect(keys.map((key: { alg: string }) => key.alg).sort()).toEqual(['ES256', 'RS256']);
  });

  it('OpenID Connect Discovery 1.0 §3: the REQUIRED fields, the same issuer', async () => {
    const res = await publicGet(todo, `${ISSUER}/.well-known/openid-configuration`).expect(200);
    const metadata = res.body;
    expect(metadata.issuer).toBe(ISSUER);
    for (const field of ['authorization_endpoint', 'token_endpoint', 'jwks_uri', 'response_types_supported', 'subject_types_supported', 'id_token_signing_alg_values_supported']) {
      expect([field, metadata[field] !== undefined]).toEqual([field, true]);
    }
    expect(metadata.subject_types_supported.every((type: string) => ['public', 'pairwise'].includes(type))).toBe(true);
    // §3: "The algorithm RS256 MUST be included."
    expect(metadata.id_token_signing_alg_values_supported).toContain('RS256');
  });

  it.each([
    ['todo-api', `${ISSUER}/api/v1/mcp`, ['todos:read', 'todos:write']],
    ['feedback-export', `${FEEDBACK}/api/v1/mcp`, ['feedback:read', 'feedback:write', 'portfolio:read']],
  ])('RFC 9728 on %s: resource identical to the URL the metadata was found from; authorization servers whose metadata names them', async (_kind, resource, scopes) => {
    const app = appFor(resource);
    // §3.1: the well-known string is inserted between the host and the path of the resource identifier.
    const { origin, pathname } = new URL(resource);
    const metadataUrl = `${origin}/.well-known/oauth-protected-resource${pathname}`;
    const res = await publicGet(app, metadataUrl).expect(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const metadata = res.body;
    // §2 REQUIRED: resource; §3.3: identical to the resource identifier.
    expect(metadata.resource).toBe(resource);
    expectHttpsUrl(metadata.resource);
    // MCP: the resource MUST list at least one authorization server; RFC 8414 §3.3: each one's metadata names it as issuer.
    expect(metadata.authorization_servers.length).toBeGreaterThan(0);
    for (const server of metadata.authorization_servers) {
      expectHttpsUrl(server, { issuer: true });
      const asMetadata = (await publicGet(appFor(server), `${server}/.well-known/oauth-authorization-server`).expect(200)).body;
      expect(asMetadata.issuer).toBe(server);
      // The scopes the resource offers can be asked for at its authorization server.
      expect(asMetadata.scopes_supported).toEqual(expect.arrayContaining(metadata.scopes_supported));
    }
    expect(metadata.scopes_supported).toEqual(scopes);
    expect(metadata.bearer_methods_supported.every((method: string) => ['header', 'body', 'query'].includes(method))).toBe(true);
    // §5.1: the 401 challenge points at the same metadata URL.
    const challenge = await app.http.post('/api/v1/mcp').set('Accept', 'application/json, text/event-stream').send({ jsonrpc: '2.0', id: 1, method: 'ping' }).expect(401);
    expect(challenge.headers['www-authenticate']).toContain(`resource_metadata="${metadataUrl}"`);
  });
});
