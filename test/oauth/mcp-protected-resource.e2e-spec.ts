import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { insertUser } from '#libs/testing';
import { insertApiKey } from '../support/api-keys.js';
import { startWithDatabase, type TestApp } from '../support/test-apps.js';
import { grantBetaAccess } from '../support/api-access.js';

/**
 * Both MCP endpoints are OAuth protected resources: a 401 tells an agent where to sign in
 * (WWW-Authenticate with the RFC 9728 metadata URL and the scopes), the metadata is served at
 * the well-known URL, and the JSON-RPC error body of the 401 stays as it was.
 */
const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } };
const MCP_ACCEPT = 'application/json, text/event-stream';

describe.each([
  {
    kind: 'todo-api' as const,
    env: { PUBLIC_BASE_URL: 'https://todo.example.test' },
    resource: 'https://todo.example.test/api/v1/mcp',
    metadataUrl: 'https://todo.example.test/.well-known/oauth-protected-resource/api/v1/mcp',
    scopes: ['todos:read', 'todos:write'],
    badCredential: 'tdk_notarealkey',
    restCode: 'API_KEY_REQUIRED',
  },
  {
    kind: 'feedback-export' as const,
    env: { PUBLIC_BASE_URL: 'https://todo.example.test', FEEDBACK_PUBLIC_BASE_URL: 'https://feedback.example.test' },
    resource: 'https://feedback.example.test/api/v1/mcp',
    metadataUrl: 'https://feedback.example.test/.well-known/oauth-protected-resource/api/v1/mcp',
    scopes: ['feedback:read', 'feedback:write', 'portfolio:read'],
    badCredential: 'sk_notarealtoken',
    restCode: 'INVALID_TOKEN',
  },
])('$kind MCP endpoint as an OAuth protected resource', ({ kind, env, resource, metadataUrl, scopes, badCredential, restCode }) => {
  let t: TestApp;
  const challenge = `Bearer resource_metadata="${metadataUrl}", scope="${scopes.join(' ')}"`;

  beforeAll(async () => {
    t = await startWithDatabase(kind, env);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('answers a request without credentials 401 with the Bearer challenge and the JSON-RPC error body', async () => {
    const res = await t.http.post('/api/v1/mcp').set('Accept', MCP_ACCEPT).send(initialize).expect(401);
    expect(res.headers['www-authenticate']).toBe(challenge);
    expect(res.body).toMatchObject({ jsonrpc: '2.0', error: { code: -32001, data: { code: restCode } } });
  });

  it('answers a bad credential, and an access token of the account system, 401 with the same challenge', async () => {
    const user = await insertUser(t.dataSource);
    for (const credential of [badCredential, 'not-a-credential', await t.accessTokenFor(user.id)]) {
      const res = await t.http.post('/api/v1/mcp').set('Accept', MCP_ACCEPT).set('Authorization', `Bearer ${credential}`).send(initialize).expect(401);
      expect(res.headers['www-authenticate']).toBe(challenge);
      expect(res.body.jsonrpc).toBe('2.0');
      expect(res.body.error.code).toBe(-32001);
    }
  });

  it('serves RFC 9728 metadata at the well-known URL, pointing at the todo service as authorization server', async () => {
    const res = await t.http.get('/.well-known/oauth-protected-resource/api/v1/mcp').expect(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toEqual({
      resource,
      authorization_servers: ['https://todo.example.test'],
      scopes_supported: scopes,
      bearer_methods_supported: ['header'],
      resource_name: expect.any(String),
    });
  });

  if (kind === 'todo-api') {
    it('keeps other failures as they were: a key of an account without access is 402 without a challenge', async () => {
      const user = await insertUser(t.dataSource);
      const { key } = await insertApiKey(t.dataSource, user.id);
      const res = await t.http.post('/api/v1/mcp').set('Accept', MCP_ACCEPT).set('Authorization', `Bearer ${key}`).send(initialize).expect(402);
      expect(res.headers['www-authenticate']).toBeUndefined();
      await grantBetaAccess(t.dataSource, user.id);
      await t.http.post('/api/v1/mcp').set('Accept', MCP_ACCEPT).set('Authorization', `Bearer ${key}`).send(initialize).expect(200);
    });
  }
});
