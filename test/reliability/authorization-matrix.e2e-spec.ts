import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes, randomUUID } from 'node:crypto';
import { JwtService } from '@nestjs/jwt';
import { listRoutes } from '#libs/common';
import { createTestDatabase, insertSession, insertUser, SmtpTestServer, usingRealPostgres, type TestDatabase, type TestUser } from '#libs/testing';
import { insertApiKey } from '../support/api-keys.js';
import { startApp, TEST_JWT_SECRET, type TestApp } from '../support/test-apps.js';
import { writeFigures } from './support/figures.js';
import { isEnvelope, isJsonRpcMessage, sendRaw, type RawResponse } from './support/http-client.js';
import { dumpDatabase, secretsIn } from './support/secret-scan.js';
import { StripeTestServer } from '../support/stripe-test-server.js';
import { grantBetaAccess } from '../support/api-access.js';
import { canonicalEmailDigest } from '#libs/identity';
import { UnsubscribeTokenCodec } from '../../apps/feedback-export/src/questions/unsubscribe-token.js';
import { ACCOUNT_MAILS, confirmEmail } from '../support/account-mails.js';

/**
 * Every route of both services x every kind of credential, with the status each cell must
 * answer (todo-service.md, feedback-service.md, decisions.md). Resources in the requests
 * belong to user A, so a B credential that gets anything but its own data is a
 * cross-account read, and any change to A's rows under a credential that is not A's is a
 * cross-account write: both are checked on every cell. Then mass assignment on every
 * write, then secrets at rest (pg_dump) and in the captured logs.
 */
const ADMIN_KEY = `admin-${randomBytes(16).toString('hex')}`;
const MARKER = `A-PRIVATE-${randomBytes(6).toString('hex')}`;
/** Well-formed WebAuthn answers (the JSON of @simplewebauthn/browser) that verify for nobody. */
const MATRIX_CLIENT_DATA = Buffer.from(JSON.stringify({ type: 'webauthn.get', challenge: 'matrix', origin: 'http://localhost' })).toString('base64url');
const MATRIX_PASSKEY_REGISTRATION = { id: 'bWF0cml4', rawId: 'bWF0cml4', type: 'public-key', clientExtensionResults: {}, response: { clientDataJSON: MATRIX_CLIENT_DATA, attestationObject: 'bWF0cml4' } };
const MATRIX_PASSKEY_ASSERTION = { id: 'bWF0cml4', rawId: 'bWF0cml4', type: 'public-key', clientExtensionResults: {}, response: { clientDataJSON: MATRIX_CLIENT_DATA, authenticatorData: 'bWF0cml4', signature: 'bWF0cml4' } };

const CREDENTIALS = [
  'none', 'malformed', 'jwtAlgNone', 'jwtExpired', 'jwtA', 'jwtB', 'jwtRevokedSession',
  'keyA', 'keyB', 'keyRevoked', 'keyRotated', 'keyExpired', 'keyLapsed', 'admin', 'adminWrong',
  'skA', 'wkA', 'okA', 'skB', 'wkB', 'okB', 'skRotated',
] as const;
type Credential = (typeof CREDENTIALS)[number];
/** Credentials that are A's and valid: the only ones allowed to read or change A's resources. */
const A_VALID: Credential[] = ['jwtA', 'keyA', 'skA', 'wkA', 'okA'];

type Scheme = 'public' | 'metrics-token' | 'jwt' | 'api-key' | 'jwt-or-api-key' | 'admin-key' | 'site-read' | 'site-write' | 'site-write-or-jwt' | 'portfolio' | 'feedback-token' | 'todo-mcp' | 'feedback-mcp';
type Service = 'todo' | 'feedback';

interface Row {
  service: Service;
  scheme: Scheme;
  method: string;
  /** The method sent, when the route takes any (`ALL` in the route table): default `method`. */
  send?: string;
  route: string;
  /** Builds the concrete path (and fresh resources of A when the request consumes them). */
  path: (w: World) => Promise<string> | string;
  body?: (w: World, credential: Credential) => Promise<unknown> | unknown;
  headers?: Record<string, string>;
  /** Status for A's valid credential of the route's kind (and for every credential on a public route). */
  ok: number;
  /** Status for B's credential of the same kind (default: ok; 404 where the target is A's). */
  foreign?: number;
  /** Error code for B's credential, when it is an error. */
  foreignCode?: string;
  after?: (w: World, credential: Credential, response: RawResponse) => void;
  /** An operator's listing of every account (admin key): the credential the route admits sees A by design; every other must not. */
  listsEveryAccount?: boolean;
}

interface World {
  A: TestUser;
  B: TestUser;
  lapsed: TestUser;
  todoA: number;
  siteA: { id: string; siteKey: string };
  feedbackA: string;
  draftA: string;
  /** A's webhook endpoint (created disabled: nothing is sent) and a delivery queued for it. */
  webhookA: string;
  webhookDeliveryA: string;
  /** A's site's webhook endpoint (created disabled) and a delivery queued for it. */
  siteWebhookA: string;
  siteWebhookDeliveryA: string;
  sentA: string;
  shareA: string;
  /** The one-click unsubscribe token of A's notifications for A's site. */
  unsubscribeA: string;
  tokens: Record<'skA' | 'wkA' | 'okA' | 'skB' | 'wkB' | 'okB' | 'skRotated', string>;
  keys: Record<'keyA' | 'keyB' | 'keyRevoked' | 'keyRotated' | 'keyExpired' | 'keyLapsed', string>;
  jwtRevokedSession: string;
  jwtExpired: string;
  jwtAlgNone: string;
}

const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
const MCP_HEADERS = { Accept: 'application/json, text/event-stream' };
const rpc = (name: string, args: Record<string, unknown>) => ({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } });

describe('authorization matrix, mass assignment and secrets', () => {
  const stripe = new StripeTestServer();
  const smtp = new SmtpTestServer();
  let database: TestDatabase;
  let todo: TestApp;
  let feedback: TestApp;
  let w: World;
  const secrets = new Set<string>();
  const keep = (...values: (string | undefined)[]) => values.forEach((v) => v && secrets.add(v));
  const figures = { fingerprintTables: 0, cells: 0, mismatches: 0, crossAccountReads: 0, crossAccountWrites: 0, massAssignmentCases: 0, massAssignmentMismatches: 0, dumpMethod: '', dumpTables: 0, dumpRows: 0, dumpBytes: 0, logLines: 0, secretsChecked: 0, secretsInDump: 0, secretsInLogs: 0 };
  const mismatchList: string[] = [];

  const appOf = (service: Service) => (service === 'todo' ? todo : feedback);
  const json = (body: unknown) => ({ body: JSON.stringify(body), headers: { 'Content-Type': 'application/json' } });

  async function call(service: Service, method: string, path: string, headers: Record<string, string> = {}, body?: unknown): Promise<RawResponse> {
    const payload: { body?: string; headers?: Record<string, string> } = body === undefined ? {} : json(body);
    return sendRaw(appOf(service).baseUrl, { method, path, headers: { ...headers, ...(payload.headers ?? {}) }, body: payload.body });
  }

  async function createSiteWithTokens(jwt: string, name: string) {
    const created = await feedback.http.post('/api/v1/sites').set(bearer(jwt)).send({ name }).expect(201);
    const id = created.body.data.site.id;
    const sk = (await feedback.http.post(`/api/v1/sites/${id}/tokens/read/rotate`).set(bearer(jwt)).expect(200)).body.data.token;
    const wk = (await feedback.http.post(`/api/v1/sites/${id}/tokens/write/rotate`).set(bearer(jwt)).expect(200)).body.data.token;
    keep(sk, wk);
    return { id, siteKey: created.body.data.siteKey as string, sk, wk };
  }

  async function freshTodo(): Promise<number> {
    const res = await todo.http.post('/api/v1/todos').set(bearer(w.keys.keyA)).send({ text: `${MARKER} todo`, priority: 2, category: 'private' }).expect(201);
    return res.body.data.todo.id;
  }

  /** A's webhook endpoints made for cells that delete one; earlier spares go first, so A stays under its endpoint quota. */
  const spareWebhooks: string[] = [];
  async function freshWebhook(): Promise<string> {
    for (const spare of spareWebhooks.splice(0)) await todo.http.delete(`/api/v1/webhooks/${spare}`).set(bearer(w.keys.keyA));
    const body = { url: 'https://1.1.1.1/matrix-hook', description: `${MARKER} webhook`, enabled: false };
    const created = (await todo.http.post('/api/v1/webhooks').set(bearer(w.keys.keyA)).send(body).expect(201)).body.data;
    // Its signing secret is sealed at rest: the dump check below finds it nowhere in plain text.
    keep(created.secret);
    const id: string = created.webhook.id;
    spareWebhooks.push(id);
    return id;
  }

  /** Site A's webhook endpoints made for cells that create or delete one (a site holds at most 10). */
  const spareSiteWebhooks: string[] = [];
  async function freshSiteWebhook(): Promise<string> {
    for (const spare of spareSiteWebhooks.splice(0)) await feedback.http.delete(`/api/v1/sites/${w.siteA.id}/webhooks/${spare}`).set(bearer(w.tokens.wkA));
    const body = { url: 'https://1.1.1.1/matrix-site-hook', description: `${MARKER} site webhook`, enabled: false };
    const created = (await feedback.http.post(`/api/v1/sites/${w.siteA.id}/webhooks`).set(bearer(w.tokens.wkA)).send(body).expect(201)).body.data;
    keep(created.secret);
    const id: string = created.webhook.id;
    spareSiteWebhooks.push(id);
    return id;
  }

  async function freshSite(): Promise<string> {
    const jwt = await feedback.accessTokenFor(w.A.id);
    return (await feedback.http.post('/api/v1/sites').set(bearer(jwt)).send({ name: `${MARKER} spare` }).expect(201)).body.data.site.id;
  }

  async function createBatch(token: string, sendNow: boolean, title = `${MARKER} batch`): Promise<{ id: string; shareUrl?: string }> {
    const res = await feedback.http
      .post('/api/v1/export/questions')
      .set(bearer(token))
      .send({ title, sendNow, questions: [{ n: 1, title: 'First', html: '<p>one</p>' }] })
      .expect(201);
    if (res.body.data.shareUrl) keep(String(res.body.data.shareUrl).split('/q/')[1]);
    return res.body.data;
  }

  async function login(user: TestUser): Promise<string> {
    const res = await todo.http.post('/api/v1/auth/login').send({ email: user.email, password: user.password }).expect(200);
    keep(res.body.data.refreshToken);
    return res.body.data.refreshToken;
  }

  beforeAll(async () => {
    await stripe.start();
    await smtp.start();
    database = await createTestDatabase();
    const env = {
      ADMIN_API_KEY: ADMIN_KEY,
      ...stripe.appEnv('matrix'),
      SMTP_URL: smtp.url,
      METRICS_TOKEN: `metrics-${randomBytes(12).toString('hex')}`,
      // The matrix makes a spare site of A's for every site-deleting cell: who may call, not how many sites an account holds.
      FEEDBACK_MAX_SITES_PER_ACCOUNT: '1000',
    };
    todo = await startApp('todo-api', database.url, env);
    feedback = await startApp('feedback-export', database.url, env);
    keep(ADMIN_KEY);

    // A and B sign up through the API (so their passwords take the real path); a lapsed user C.
    const signUp = async (tag: string): Promise<TestUser> => {
      const email = `${tag}-${randomBytes(4).toString('hex')}@example.test`;
      const password = `pw-${randomBytes(8).toString('hex')}-Secret`;
      const res = await todo.http.post('/api/v1/auth/signup').send({ email, password, passwordConfirm: password }).expect(201);
      keep(password, res.body.data.refreshToken);
      return { id: res.body.data.user.id, email, username: res.body.data.user.username, password };
    };
    const A = await signUp('alice');
    // A confirms its address (as its owner would), so the rows of what verification gates (enrolling a second factor, a change of e-mail) reach the owner's success.
    await confirmEmail(todo, smtp, A.email);
    const B = await signUp('bob');
    const lapsed = await signUp('carol');
    await grantBetaAccess(todo.dataSource, A.id);
    await grantBetaAccess(todo.dataSource, B.id);
    await todo.dataSource.query(`INSERT INTO subscriptions (user_id, status, is_beta_lifetime) VALUES ($1, 'canceled', false) ON CONFLICT (user_id) DO UPDATE SET status = 'canceled', is_beta_lifetime = false`, [lapsed.id]);

    const jwtA = await todo.accessTokenFor(A.id);
    const jwtB = await todo.accessTokenFor(B.id);
    const createKey = async (jwt: string, name: string, extra: Record<string, unknown> = {}) => {
      const res = await todo.http.post('/api/v1/auth/api-keys').set(bearer(jwt)).send({ name, ...extra }).expect(201);
      keep(res.body.data.apiKey);
      return { id: res.body.data.key.id as string, key: res.body.data.apiKey as string };
    };
    const keyA = await createKey(jwtA, 'A main');
    const keyB = await createKey(jwtB, 'B main');
    const revoked = await createKey(jwtA, 'A revoked');
    await todo.http.delete(`/api/v1/auth/api-keys/${revoked.id}`).set(bearer(jwtA)).expect(200);
    const rotated = await createKey(jwtA, 'A rotated');
    const rotation = await todo.http.post(`/api/v1/auth/api-keys/${rotated.id}/rotate`).set(bearer(jwtA)).send({}).expect(200);
    keep(rotation.body.data.apiKey);
    const expired = await insertApiKey(todo.dataSource, A.id, { expiresAt: new Date(Date.now() - 60_000) });
    const lapsedKey = await insertApiKey(todo.dataSource, lapsed.id);
    keep(expired.key, lapsedKey.key);

    const revokedSession = await insertSession(todo.dataSource, A.id);
    const jwtRevokedSession = todo.app.get(JwtService).sign({ sub: A.id, sid: revokedSession, typ: 'access' }, { algorithm: 'HS256', expiresIn: 900 });
    await todo.dataSource.query(`UPDATE sessions SET revoked_at = now() WHERE id = $1`, [revokedSession]);
    const liveSession = await insertSession(todo.dataSource, A.id);
    const jwtExpired = new JwtService({ secret: TEST_JWT_SECRET }).sign({ sub: A.id, sid: liveSession, typ: 'access', exp: Math.floor(Date.now() / 1000) - 60 }, { algorithm: 'HS256' });
    const unsigned = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const jwtAlgNone = `${unsigned({ alg: 'none', typ: 'JWT' })}.${unsigned({ sub: A.id, sid: liveSession, typ: 'access', exp: Math.floor(Date.now() / 1000) + 600 })}.`;

    const siteA = await createSiteWithTokens(jwtA, `${MARKER} site`);
    const siteB = await createSiteWithTokens(jwtB, 'B site');
    const skRotated = siteA.sk;
    const skA = (await feedback.http.post(`/api/v1/sites/${siteA.id}/tokens/read/rotate`).set(bearer(jwtA)).expect(200)).body.data.token;
    const okA = (await feedback.http.post('/api/v1/portfolio-token/rotate').set(bearer(jwtA)).expect(200)).body.data.token;
    const okB = (await feedback.http.post('/api/v1/portfolio-token/rotate').set(bearer(jwtB)).expect(200)).body.data.token;
    keep(skA, okA, okB);

    const fed = await feedback.http.post('/api/v1/widget/feedback').send({ siteKey: siteA.siteKey, type: 'bug', message: `${MARKER} feedback`, pageUrl: 'https://a.example/' }).expect(201);
    await feedback.http.post('/api/v1/widget/feedback').send({ siteKey: siteB.siteKey, type: 'bug', message: 'B feedback', pageUrl: 'https://b.example/' }).expect(201);

    w = {
      A, B, lapsed,
      todoA: 0,
      siteA: { id: siteA.id, siteKey: siteA.siteKey },
      feedbackA: fed.body.data.id,
      draftA: '', sentA: '', shareA: '', webhookA: '', webhookDeliveryA: '', siteWebhookA: '', siteWebhookDeliveryA: '',
      unsubscribeA: new UnsubscribeTokenCodec(TEST_JWT_SECRET).seal({ siteId: siteA.id, recipientDigest: canonicalEmailDigest(A.email) }),
      tokens: { skA, wkA: siteA.wk, okA, skB: siteB.sk, wkB: siteB.wk, okB, skRotated },
      keys: { keyA: keyA.key, keyB: keyB.key, keyRevoked: revoked.key, keyRotated: rotated.key, keyExpired: expired.key, keyLapsed: lapsedKey.key },
      jwtRevokedSession, jwtExpired, jwtAlgNone,
    };
    w.todoA = await freshTodo();
    w.webhookA = await freshWebhook();
    w.webhookDeliveryA = (await todo.http.post(`/api/v1/webhooks/${w.webhookA}/test`).set(bearer(keyA.key)).send({ eventType: 'todo.created' }).expect(202)).body.data.delivery.id;
    spareWebhooks.length = 0;
    w.siteWebhookA = await freshSiteWebhook();
    w.siteWebhookDeliveryA = (await feedback.http.post(`/api/v1/sites/${siteA.id}/webhooks/${w.siteWebhookA}/test`).set(bearer(siteA.wk)).send({ eventType: 'feedback.created' }).expect(202)).body.data.delivery.id;
    spareSiteWebhooks.length = 0;
    await todo.http.post('/api/v1/todos').set(bearer(keyB.key)).send({ text: 'B todo', priority: 3, category: 'b' }).expect(201);
    w.draftA = (await createBatch(siteA.wk, false)).id;
    const sent = await createBatch(siteA.wk, true);
    w.sentA = sent.id;
    w.shareA = String(sent.shareUrl).split('/q/')[1];
    await createBatch(siteB.wk, true, 'B batch');
    await login(A);
    await login(B);
  }, 120_000);

  afterAll(async () => {
    writeFigures('authorization', { ...figures, mismatchList: mismatchList.slice(0, 100) });
    await todo?.close();
    await feedback?.close();
    await database?.drop();
    await stripe.stop();
    await smtp.stop();
  });

  async function headersOf(credential: Credential): Promise<Record<string, string>> {
    switch (credential) {
      case 'none': return {};
      case 'malformed': return { Authorization: 'Bearer not-a-token' };
      case 'jwtAlgNone': return bearer(w.jwtAlgNone);
      case 'jwtExpired': return bearer(w.jwtExpired);
      case 'jwtA': return bearer(await todo.accessTokenFor(w.A.id));
      case 'jwtB': return bearer(await todo.accessTokenFor(w.B.id));
      case 'jwtRevokedSession': return bearer(w.jwtRevokedSession);
      case 'admin': return { 'X-Admin-API-Key': ADMIN_KEY };
      case 'adminWrong': return { 'X-Admin-API-Key': `${ADMIN_KEY}x` };
      case 'keyA': case 'keyB': case 'keyRevoked': case 'keyRotated': case 'keyExpired': case 'keyLapsed':
        return credential === 'keyB' ? { 'X-API-Key': w.keys[credential] } : bearer(w.keys[credential]);
      default: return bearer(w.tokens[credential]);
    }
  }

  /** The answer the published documents require for one cell. */
  function expected(row: Row, credential: Credential): { status: number; code?: string } {
    const ok = { status: row.ok };
    const foreign = { status: row.foreign ?? row.ok, code: row.foreignCode };
    const presentsNoKey = ['none', 'admin', 'adminWrong'].includes(credential);
    switch (row.scheme) {
      case 'public':
        return ok;
      case 'metrics-token':
        // No credential of the matrix is the operators' metrics token.
        return { status: 401, code: 'AUTH_REQUIRED' };
      case 'jwt':
        return credential === 'jwtA' ? ok : credential === 'jwtB' ? foreign : { status: 401, code: 'AUTH_REQUIRED' };
      case 'api-key':
      case 'todo-mcp':
        if (credential === 'keyA') return ok;
        if (credential === 'keyB') return foreign;
        if (credential === 'keyLapsed') return { status: 402, code: row.route.endsWith('/mcp') ? undefined : 'SUBSCRIPTION_REQUIRED' };
        return { status: 401, code: row.route.endsWith('/mcp') ? undefined : presentsNoKey ? 'API_KEY_REQUIRED' : 'INVALID_API_KEY' };
      case 'jwt-or-api-key':
        if (['jwtA', 'keyA'].includes(credential)) return ok;
        if (['jwtB', 'keyB'].includes(credential)) return foreign;
        if (credential === 'keyLapsed') return { status: 402 };
        return { status: 401 };
      case 'admin-key':
        return credential === 'admin' ? ok : { status: 401, code: 'ADMIN_AUTH_REQUIRED' };
      case 'site-read':
        return ['skA', 'wkA'].includes(credential) ? ok : ['skB', 'wkB'].includes(credential) ? foreign : { status: 401, code: 'INVALID_TOKEN' };
      case 'site-write':
        return credential === 'wkA' ? ok : credential === 'wkB' ? foreign : { status: 401, code: 'INVALID_TOKEN' };
      case 'site-write-or-jwt':
        // A read or portfolio token is INVALID_TOKEN, anything else that is no valid access token AUTH_REQUIRED.
        if (['wkA', 'jwtA'].includes(credential)) return ok;
        if (['wkB', 'jwtB'].includes(credential)) return foreign;
        return { status: 401, code: ['skA', 'skB', 'okA', 'okB', 'skRotated'].includes(credential) ? 'INVALID_TOKEN' : 'AUTH_REQUIRED' };
      case 'portfolio':
        return credential === 'okA' ? ok : credential === 'okB' ? foreign : { status: 401, code: 'INVALID_TOKEN' };
      case 'feedback-token':
      case 'feedback-mcp':
        return ['skA', 'wkA', 'okA'].includes(credential) ? ok : ['skB', 'wkB', 'okB'].includes(credential) ? foreign : { status: 401 };
    }
  }

  const ROWS: Row[] = [
    // ---- todo-api ------------------------------------------------------------------------
    { service: 'todo', scheme: 'public', method: 'GET', route: '/', path: () => '/', ok: 200 },
    { service: 'todo', scheme: 'public', method: 'GET', route: '/api/v1/status', path: () => '/api/v1/status', ok: 200 },
    { service: 'todo', scheme: 'public', method: 'GET', route: '/livez', path: () => '/livez', ok: 200 },
    { service: 'todo', scheme: 'public', method: 'GET', route: '/readyz', path: () => '/readyz', ok: 200 },
    { service: 'todo', scheme: 'metrics-token', method: 'GET', route: '/metrics', path: () => '/metrics', ok: 200 },
    { service: 'todo', scheme: 'public', method: 'POST', route: '/api/v1/auth/signup', path: () => '/api/v1/auth/signup', body: () => ({ email: 'not-an-email' }), ok: 400 },
    { service: 'todo', scheme: 'public', method: 'POST', route: '/api/v1/auth/login', path: () => '/api/v1/auth/login', body: (x) => ({ email: x.A.email }), ok: 400 },
    { service: 'todo', scheme: 'jwt', method: 'GET', route: '/api/v1/auth/verify', path: () => '/api/v1/auth/verify', ok: 200 },
    { service: 'todo', scheme: 'public', method: 'POST', route: '/api/v1/auth/refresh', path: () => '/api/v1/auth/refresh', body: () => ({ refreshToken: 'not-a-refresh-token' }), ok: 401 },
    { service: 'todo', scheme: 'jwt', method: 'POST', route: '/api/v1/auth/logout', path: () => '/api/v1/auth/logout', body: async (x) => ({ refreshToken: await login(x.A) }), ok: 200 },
    { service: 'todo', scheme: 'public', method: 'POST', route: '/api/v1/auth/forgot-password', path: () => '/api/v1/auth/forgot-password', body: () => ({ email: `nobody-${randomBytes(3).toString('hex')}@example.test` }), ok: 200 },
    { service: 'todo', scheme: 'public', method: 'POST', route: '/api/v1/auth/verify-reset-code', path: () => '/api/v1/auth/verify-reset-code', body: (x) => ({ email: x.A.email, code: '12345x' }), ok: 400 },
    { service: 'todo', scheme: 'public', method: 'POST', route: '/api/v1/auth/reset-password', path: () => '/api/v1/auth/reset-password', body: () => ({ token: 'not-a-reset-token', password: 'long-enough-1', passwordConfirm: 'long-enough-1' }), ok: 400 },
    // A "changes" to the same password (sessions end, nothing else); B presenting A's password is refused.
    { service: 'todo', scheme: 'jwt', method: 'POST', route: '/api/v1/auth/change-password', path: () => '/api/v1/auth/change-password', body: (x) => ({ currentPassword: x.A.password, newPassword: x.A.password, newPasswordConfirm: x.A.password }), ok: 200, foreign: 401, foreignCode: 'INVALID_CREDENTIALS' },
    { service: 'todo', scheme: 'public', method: 'POST', route: '/api/v1/auth/verify-email', path: () => '/api/v1/auth/verify-email', body: () => ({ token: 'not-an-email-code' }), ok: 400 },
    { service: 'todo', scheme: 'jwt', method: 'POST', route: '/api/v1/auth/verify-email/resend', path: () => '/api/v1/auth/verify-email/resend', body: () => ({}), ok: 200 },
    { service: 'todo', scheme: 'jwt', method: 'GET', route: '/api/v1/auth/sessions', path: () => '/api/v1/auth/sessions', ok: 200 },
    { service: 'todo', scheme: 'jwt', method: 'DELETE', route: '/api/v1/auth/sessions/:sessionId', path: async (x) => `/api/v1/auth/sessions/${await insertSession(todo.dataSource, x.A.id)}`, ok: 200, foreign: 404, foreignCode: 'NOT_FOUND' },
    { service: 'todo', scheme: 'jwt', method: 'GET', route: '/api/v1/billing/subscription', path: () => '/api/v1/billing/subscription', ok: 200 },
    { service: 'todo', scheme: 'jwt', method: 'POST', route: '/api/v1/billing/checkout-session', path: () => '/api/v1/billing/checkout-session', body: () => ({}), ok: 409 },
    { service: 'todo', scheme: 'jwt', method: 'POST', route: '/api/v1/billing/portal-session', path: () => '/api/v1/billing/portal-session', body: () => ({}), ok: 404 },
    { service: 'todo', scheme: 'jwt', method: 'POST', route: '/api/v1/billing/subscription/cancel', path: () => '/api/v1/billing/subscription/cancel', body: () => ({}), ok: 404 },
    { service: 'todo', scheme: 'jwt', method: 'POST', route: '/api/v1/billing/subscription/reactivate', path: () => '/api/v1/billing/subscription/reactivate', body: () => ({}), ok: 404 },
    { service: 'todo', scheme: 'admin-key', method: 'GET', route: '/api/v1/billing/beta', path: () => '/api/v1/billing/beta', ok: 200, listsEveryAccount: true },
    { service: 'todo', scheme: 'admin-key', method: 'POST', route: '/api/v1/billing/beta/grant', path: () => '/api/v1/billing/beta/grant', body: async () => ({ userId: (await insertUser(todo.dataSource)).id }), ok: 200 },
    {
      service: 'todo', scheme: 'admin-key', method: 'POST', route: '/api/v1/billing/beta/revoke', path: () => '/api/v1/billing/beta/revoke',
      body: async () => { const u = await insertUser(todo.dataSource); await grantBetaAccess(todo.dataSource, u.id); return { userId: u.id }; }, ok: 200,
    },
    { service: 'todo', scheme: 'public', method: 'POST', route: '/api/v1/billing/webhook', path: () => '/api/v1/billing/webhook', body: () => ({ id: 'evt_1', type: 'customer.subscription.deleted' }), ok: 400 },
    { service: 'todo', scheme: 'jwt', method: 'GET', route: '/api/v1/auth/api-keys', path: () => '/api/v1/auth/api-keys', ok: 200 },
    {
      service: 'todo', scheme: 'jwt', method: 'POST', route: '/api/v1/auth/api-keys',
      // A holds at most 20 working keys; the cells below keep inserting some, so make room first (the fixture's own keys stay).
      path: async (x) => {
        await todo.dataSource.query(`UPDATE api_keys SET revoked_at = now() WHERE user_id = $1 AND revoked_at IS NULL AND name NOT IN ('A main', 'A rotated')`, [x.A.id]);
        return '/api/v1/auth/api-keys';
      },
      body: () => ({ name: 'matrix' }), ok: 201, after: (_x, _c, res) => keep((res.json as any)?.data?.apiKey),
    },
    { service: 'todo', scheme: 'jwt', method: 'DELETE', route: '/api/v1/auth/api-keys/:keyId', path: async (x) => `/api/v1/auth/api-keys/${(await insertApiKey(todo.dataSource, x.A.id)).id}`, ok: 200, foreign: 404, foreignCode: 'NOT_FOUND' },
    {
      service: 'todo', scheme: 'jwt', method: 'POST', route: '/api/v1/auth/api-keys/:keyId/rotate', path: async (x) => `/api/v1/auth/api-keys/${(await insertApiKey(todo.dataSource, x.A.id)).id}/rotate`,
      body: () => ({}), ok: 200, foreign: 404, foreignCode: 'NOT_FOUND', after: (_x, _c, res) => keep((res.json as any)?.data?.apiKey),
    },
    { service: 'todo', scheme: 'api-key', method: 'GET', route: '/api/v1/auth/api-keys/current', path: () => '/api/v1/auth/api-keys/current', ok: 200 },
    { service: 'todo', scheme: 'api-key', method: 'GET', route: '/api/v1/todos', path: () => '/api/v1/todos', ok: 200 },
    { service: 'todo', scheme: 'api-key', method: 'POST', route: '/api/v1/todos', path: () => '/api/v1/todos', body: () => ({ text: 'created in matrix', priority: 4, category: 'matrix' }), ok: 201 },
    { service: 'todo', scheme: 'api-key', method: 'GET', route: '/api/v1/todos/:todoId', path: (x) => `/api/v1/todos/${x.todoA}`, ok: 200, foreign: 404, foreignCode: 'NOT_FOUND' },
    { service: 'todo', scheme: 'api-key', method: 'PUT', route: '/api/v1/todos/:todoId', path: (x) => `/api/v1/todos/${x.todoA}`, body: () => ({ text: `${MARKER} todo` }), ok: 200, foreign: 404, foreignCode: 'NOT_FOUND' },
    { service: 'todo', scheme: 'api-key', method: 'DELETE', route: '/api/v1/todos/:todoId', path: async () => `/api/v1/todos/${await freshTodo()}`, ok: 200, foreign: 404, foreignCode: 'NOT_FOUND' },
    { service: 'todo', scheme: 'jwt-or-api-key', method: 'GET', route: '/api/v1/todos/events', path: () => '/api/v1/todos/events', headers: { Accept: 'text/event-stream' }, ok: 200 },
    // Webhook endpoints: each account manages its own; B reaching A's endpoint or delivery gets 404.
    { service: 'todo', scheme: 'jwt-or-api-key', method: 'POST', route: '/api/v1/webhooks', path: () => '/api/v1/webhooks', body: () => ({ url: 'https://1.1.1.1/matrix-created', enabled: false }), ok: 201, after: (x, c, res) => { if (res.status === 201 && (c === 'jwtA' || c === 'keyA')) spareWebhooks.push(JSON.parse(res.text).data.webhook.id); } },
    { service: 'todo', scheme: 'jwt-or-api-key', method: 'GET', route: '/api/v1/webhooks', path: () => '/api/v1/webhooks', ok: 200 },
    { service: 'todo', scheme: 'jwt-or-api-key', method: 'GET', route: '/api/v1/webhooks/:webhookId', path: (x) => `/api/v1/webhooks/${x.webhookA}`, ok: 200, foreign: 404, foreignCode: 'NOT_FOUND' },
    { service: 'todo', scheme: 'jwt-or-api-key', method: 'PATCH', route: '/api/v1/webhooks/:webhookId', path: (x) => `/api/v1/webhooks/${x.webhookA}`, body: () => ({ description: `${MARKER} webhook` }), ok: 200, foreign: 404, foreignCode: 'NOT_FOUND' },
    { service: 'todo', scheme: 'jwt-or-api-key', method: 'DELETE', route: '/api/v1/webhooks/:webhookId', path: async () => `/api/v1/webhooks/${await freshWebhook()}`, ok: 200, foreign: 404, foreignCode: 'NOT_FOUND' },
    { service: 'todo', scheme: 'jwt-or-api-key', method: 'POST', route: '/api/v1/webhooks/:webhookId/rotate-secret', path: (x) => `/api/v1/webhooks/${x.webhookA}/rotate-secret`, ok: 200, foreign: 404, foreignCode: 'NOT_FOUND' },
    { service: 'todo', scheme: 'jwt-or-api-key', method: 'POST', route: '/api/v1/webhooks/:webhookId/test', path: (x) => `/api/v1/webhooks/${x.webhookA}/test`, body: () => ({ eventType: 'todo.updated' }), ok: 202, foreign: 404, foreignCode: 'NOT_FOUND' },
    { service: 'todo', scheme: 'jwt-or-api-key', method: 'GET', route: '/api/v1/webhooks/:webhookId/deliveries', path: (x) => `/api/v1/webhooks/${x.webhookA}/deliveries`, ok: 200, foreign: 404, foreignCode: 'NOT_FOUND' },
    { service: 'todo', scheme: 'jwt-or-api-key', method: 'POST', route: '/api/v1/webhooks/:webhookId/replay', path: (x) => `/api/v1/webhooks/${x.webhookA}/replay`, body: () => ({ since: new Date(Date.now() - 3600_000).toISOString() }), ok: 202, foreign: 404, foreignCode: 'NOT_FOUND' },
    { service: 'todo', scheme: 'jwt-or-api-key', method: 'POST', route: '/api/v1/webhooks/deliveries/:deliveryId/replay', path: (x) => `/api/v1/webhooks/deliveries/${x.webhookDeliveryA}/replay`, ok: 202, foreign: 404, foreignCode: 'NOT_FOUND' },
    { service: 'todo', scheme: 'jwt', method: 'GET', route: '/api/v1/account/export', path: () => '/api/v1/account/export', ok: 200 },
    { service: 'todo', scheme: 'jwt', method: 'GET', route: '/api/v1/account/activity', path: () => '/api/v1/account/activity', ok: 200 },
    // A's address is not confirmed (403: a change needs a confirmed address); B presenting A's password is refused.
    { service: 'todo', scheme: 'jwt', method: 'POST', route: '/api/v1/account/email', path: () => '/api/v1/account/email', body: (x) => ({ email: `moved-${randomBytes(3).toString('hex')}@example.test`, currentPassword: x.A.password }), ok: 200, foreign: 401, foreignCode: 'INVALID_CREDENTIALS' },
    { service: 'todo', scheme: 'public', method: 'POST', route: '/api/v1/account/email/confirm', path: () => '/api/v1/account/email/confirm', body: () => ({ token: 'not-an-email-code' }), ok: 400 },
    { service: 'todo', scheme: 'public', method: 'POST', route: '/api/v1/account/email/revert', path: () => '/api/v1/account/email/revert', body: () => ({ token: 'not-an-email-code' }), ok: 400 },
    // The second factor: A restarts a pending enrolment with its own password (B presenting A's password is refused); A and B
    // have no confirmed factor to confirm, disable or renew codes of; an unknown sign-in challenge is refused.
    { service: 'todo', scheme: 'jwt', method: 'GET', route: '/api/v1/account/mfa', path: () => '/api/v1/account/mfa', ok: 200 },
    { service: 'todo', scheme: 'jwt', method: 'POST', route: '/api/v1/account/mfa/totp', path: () => '/api/v1/account/mfa/totp', body: (x) => ({ password: x.A.password }), ok: 201, foreign: 401, foreignCode: 'INVALID_CREDENTIALS' },
    { service: 'todo', scheme: 'jwt', method: 'POST', route: '/api/v1/account/mfa/totp/confirm', path: () => '/api/v1/account/mfa/totp/confirm', body: () => ({ code: '12345x' }), ok: 400 },
    { service: 'todo', scheme: 'jwt', method: 'DELETE', route: '/api/v1/account/mfa/totp', path: () => '/api/v1/account/mfa/totp', body: (x) => ({ password: x.A.password, code: '123456' }), ok: 404 },
    { service: 'todo', scheme: 'jwt', method: 'POST', route: '/api/v1/account/mfa/recovery-codes', path: () => '/api/v1/account/mfa/recovery-codes', body: (x) => ({ password: x.A.password, code: '123456' }), ok: 404 },
    { service: 'todo', scheme: 'public', method: 'POST', route: '/api/v1/auth/mfa/verify', path: () => '/api/v1/auth/mfa/verify', body: () => ({ challengeToken: 'mfa_unknown', code: '123456' }), ok: 401 },
    // Passkeys: A starts a registration with its own password (B presenting A's password is refused); a credential that does not
    // verify is refused; no account holds the passkey id named (a passkey of A's would make A a second-factor account for the
    // other cells: the passkeys suite checks another account's passkey is 404); unknown challenges and assertions are refused.
    { service: 'todo', scheme: 'jwt', method: 'GET', route: '/api/v1/account/passkeys', path: () => '/api/v1/account/passkeys', ok: 200 },
    { service: 'todo', scheme: 'jwt', method: 'POST', route: '/api/v1/account/passkey-options', path: () => '/api/v1/account/passkey-options', body: (x) => ({ password: x.A.password }), ok: 200, foreign: 401, foreignCode: 'INVALID_CREDENTIALS' },
    // A holds no passkey: no options for a fresh check by one (the passkeys suite answers them for an account that has one).
    { service: 'todo', scheme: 'jwt', method: 'POST', route: '/api/v1/account/passkey-check-options', path: () => '/api/v1/account/passkey-check-options', body: () => ({}), ok: 404 },
    { service: 'todo', scheme: 'jwt', method: 'POST', route: '/api/v1/account/passkeys', path: () => '/api/v1/account/passkeys', body: () => ({ credential: MATRIX_PASSKEY_REGISTRATION }), ok: 400 },
    { service: 'todo', scheme: 'jwt', method: 'PATCH', route: '/api/v1/account/passkeys/:passkeyId', path: () => `/api/v1/account/passkeys/${randomUUID()}`, body: () => ({ name: 'matrix' }), ok: 404 },
    { service: 'todo', scheme: 'jwt', method: 'DELETE', route: '/api/v1/account/passkeys/:passkeyId', path: () => `/api/v1/account/passkeys/${randomUUID()}`, body: (x) => ({ password: x.A.password, code: '123456' }), ok: 404 },
    { service: 'todo', scheme: 'public', method: 'POST', route: '/api/v1/auth/mfa/passkey-options', path: () => '/api/v1/auth/mfa/passkey-options', body: () => ({ challengeToken: 'mfa_unknown' }), ok: 401 },
    { service: 'todo', scheme: 'public', method: 'POST', route: '/api/v1/auth/passkey/options', path: () => '/api/v1/auth/passkey/options', body: () => ({}), ok: 200 },
    { service: 'todo', scheme: 'public', method: 'POST', route: '/api/v1/auth/passkey/verify', path: () => '/api/v1/auth/passkey/verify', body: () => ({ credential: MATRIX_PASSKEY_ASSERTION }), ok: 401 },
    // A's own request misses the exact confirmation (400, A stays); B presents A's password with it (401, nothing deleted).
    { service: 'todo', scheme: 'jwt', method: 'DELETE', route: '/api/v1/account', path: () => '/api/v1/account', body: (x, c) => ({ password: x.A.password, confirmText: c === 'jwtA' ? 'delete' : 'DELETE' }), ok: 400, foreign: 401, foreignCode: 'INVALID_CREDENTIALS' },
    { service: 'todo', scheme: 'todo-mcp', method: 'POST', route: '/api/v1/mcp', path: () => '/api/v1/mcp', headers: MCP_HEADERS, body: (x) => rpc('get_todo', { id: x.todoA }), ok: 200 },
    { service: 'todo', scheme: 'jwt', method: 'GET', route: '/api/v1/account/connected-apps', path: () => '/api/v1/account/connected-apps', ok: 200 },
    { service: 'todo', scheme: 'jwt', method: 'DELETE', route: '/api/v1/account/connected-apps/:clientId', path: () => '/api/v1/account/connected-apps/no-such-client', ok: 404 },
    // OAuth discovery and the authorization server (oidc-provider): protocol answers (RFC-shaped JSON or HTML), not the envelope.
    { service: 'todo', scheme: 'public', method: 'GET', route: '/.well-known/oauth-protected-resource/api/v1/mcp', path: () => '/.well-known/oauth-protected-resource/api/v1/mcp', ok: 200 },
    { service: 'todo', scheme: 'public', method: 'GET', route: '/.well-known/oauth-authorization-server', path: () => '/.well-known/oauth-authorization-server', ok: 200 },
    { service: 'todo', scheme: 'public', method: 'ALL', send: 'GET', route: '/.well-known/openid-configuration', path: () => '/.well-known/openid-configuration', ok: 200 },
    { service: 'todo', scheme: 'public', method: 'ALL', send: 'GET', route: '/oauth/jwks', path: () => '/oauth/jwks', ok: 200 },
    { service: 'todo', scheme: 'public', method: 'ALL', send: 'GET', route: '/oauth/authorize', path: () => '/oauth/authorize', ok: 400 },
    { service: 'todo', scheme: 'public', method: 'ALL', send: 'GET', route: '/oauth/authorize/*resume', path: () => '/oauth/authorize/no-such-interaction', ok: 400 },
    { service: 'todo', scheme: 'public', method: 'ALL', send: 'POST', route: '/oauth/token', path: () => '/oauth/token', body: () => ({ grant_type: 'refresh_token', refresh_token: 'not-a-token' }), ok: 400 },
    { service: 'todo', scheme: 'public', method: 'ALL', send: 'POST', route: '/oauth/revoke', path: () => '/oauth/revoke', body: () => ({ token: 'not-a-token' }), ok: 400 },
    { service: 'todo', scheme: 'public', method: 'ALL', send: 'GET', route: '/oauth/register/*client', path: () => '/oauth/register/no-such-client', ok: 401 },
    {
      service: 'todo', scheme: 'public', method: 'POST', route: '/oauth/register',
      // 20 registrations per address and hour: each cell starts from a clean budget.
      path: async () => {
        await todo.rateLimits.clear('oauth-register');
        return '/oauth/register';
      },
      body: () => ({ redirect_uris: ['not a url'] }), ok: 400,
    },
    { service: 'todo', scheme: 'public', method: 'GET', route: '/oauth/assets/sign-in.css', path: () => '/oauth/assets/sign-in.css', ok: 200 },
    { service: 'todo', scheme: 'public', method: 'GET', route: '/account', path: () => '/account', ok: 200 },
    { service: 'todo', scheme: 'public', method: 'GET', route: '/account/sign-in', path: () => '/account/sign-in', ok: 200 },
    { service: 'todo', scheme: 'public', method: 'GET', route: '/account/sign-up', path: () => '/account/sign-up', ok: 200 },
    { service: 'todo', scheme: 'public', method: 'GET', route: '/account/verify-email', path: () => '/account/verify-email', ok: 200 },
    { service: 'todo', scheme: 'public', method: 'GET', route: '/account/forgot-password', path: () => '/account/forgot-password', ok: 200 },
    { service: 'todo', scheme: 'public', method: 'GET', route: '/account/reset-password', path: () => '/account/reset-password', ok: 200 },
    { service: 'todo', scheme: 'public', method: 'GET', route: '/assets/account.js', path: () => '/assets/account.js', ok: 200 },
    { service: 'todo', scheme: 'public', method: 'GET', route: '/assets/app.css', path: () => '/assets/app.css', ok: 200 },
    { service: 'todo', scheme: 'public', method: 'GET', route: '/assets/page-kit.js', path: () => '/assets/page-kit.js', ok: 200 },
    { service: 'todo', scheme: 'public', method: 'GET', route: '/assets/webhook-panel.js', path: () => '/assets/webhook-panel.js', ok: 200 },
    { service: 'todo', scheme: 'public', method: 'GET', route: '/assets/simplewebauthn-browser.js', path: () => '/assets/simplewebauthn-browser.js', ok: 200 },
    { service: 'todo', scheme: 'public', method: 'GET', route: '/favicon.ico', path: () => '/favicon.ico', ok: 200 },
    { service: 'todo', scheme: 'public', method: 'GET', route: '/favicon.svg', path: () => '/favicon.svg', ok: 200 },
    { service: 'todo', scheme: 'public', method: 'GET', route: '/oauth/interaction/:uid', path: () => '/oauth/interaction/no-such-interaction', ok: 400 },
    { service: 'todo', scheme: 'public', method: 'POST', route: '/oauth/interaction/:uid', path: () => '/oauth/interaction/no-such-interaction', body: () => ({ decision: 'allow' }), ok: 400 },
    // ---- feedback-export -----------------------------------------------------------------
    { service: 'feedback', scheme: 'public', method: 'GET', route: '/', path: () => '/', ok: 200 },
    { service: 'feedback', scheme: 'public', method: 'GET', route: '/api/v1/status', path: () => '/api/v1/status', ok: 200 },
    { service: 'feedback', scheme: 'public', method: 'GET', route: '/livez', path: () => '/livez', ok: 200 },
    { service: 'feedback', scheme: 'public', method: 'GET', route: '/readyz', path: () => '/readyz', ok: 200 },
    { service: 'feedback', scheme: 'metrics-token', method: 'GET', route: '/metrics', path: () => '/metrics', ok: 200 },
    { service: 'feedback', scheme: 'jwt', method: 'POST', route: '/api/v1/sites', path: () => '/api/v1/sites', body: () => ({ name: 'matrix site' }), ok: 201 },
    { service: 'feedback', scheme: 'jwt', method: 'GET', route: '/api/v1/sites', path: () => '/api/v1/sites', ok: 200 },
    { service: 'feedback', scheme: 'jwt', method: 'GET', route: '/api/v1/sites/:siteId', path: (x) => `/api/v1/sites/${x.siteA.id}`, ok: 200, foreign: 404, foreignCode: 'NOT_FOUND' },
    { service: 'feedback', scheme: 'jwt', method: 'PATCH', route: '/api/v1/sites/:siteId', path: (x) => `/api/v1/sites/${x.siteA.id}`, body: () => ({ name: `${MARKER} site` }), ok: 200, foreign: 404, foreignCode: 'NOT_FOUND' },
    { service: 'feedback', scheme: 'jwt', method: 'DELETE', route: '/api/v1/sites/:siteId', path: async () => `/api/v1/sites/${await freshSite()}`, ok: 200, foreign: 404, foreignCode: 'NOT_FOUND' },
    {
      service: 'feedback', scheme: 'jwt', method: 'POST', route: '/api/v1/sites/:siteId/tokens/read/rotate', path: async () => `/api/v1/sites/${await freshSite()}/tokens/read/rotate`,
      ok: 200, foreign: 404, foreignCode: 'NOT_FOUND', after: (_x, _c, res) => keep((res.json as any)?.data?.token),
    },
    {
      service: 'feedback', scheme: 'jwt', method: 'POST', route: '/api/v1/sites/:siteId/tokens/write/rotate', path: async () => `/api/v1/sites/${await freshSite()}/tokens/write/rotate`,
      ok: 200, foreign: 404, foreignCode: 'NOT_FOUND', after: (_x, _c, res) => keep((res.json as any)?.data?.token),
    },
    {
      service: 'feedback', scheme: 'jwt', method: 'POST', route: '/api/v1/portfolio-token/rotate', path: () => '/api/v1/portfolio-token/rotate', ok: 200,
      after: (x, c, res) => {
        const token = (res.json as any)?.data?.token;
        keep(token);
        if (token && c === 'jwtA') x.tokens.okA = token;
        if (token && c === 'jwtB') x.tokens.okB = token;
      },
    },
    { service: 'feedback', scheme: 'site-read', method: 'GET', route: '/api/v1/export/feedback', path: () => '/api/v1/export/feedback', ok: 200 },
    { service: 'feedback', scheme: 'portfolio', method: 'GET', route: '/api/v1/export/portfolio/feedback', path: () => '/api/v1/export/portfolio/feedback', ok: 200 },
    { service: 'feedback', scheme: 'site-write', method: 'PUT', route: '/api/v1/export/feedback/:id', path: (x) => `/api/v1/export/feedback/${x.feedbackA}`, body: () => ({ status: 'triaged' }), ok: 200, foreign: 404, foreignCode: 'NOT_FOUND' },
    { service: 'feedback', scheme: 'public', method: 'GET', route: '/widget.js', path: () => '/widget.js', ok: 200 },
    { service: 'feedback', scheme: 'public', method: 'POST', route: '/api/v1/widget/feedback', path: () => '/api/v1/widget/feedback', body: (x) => ({ siteKey: x.siteA.siteKey, type: 'feedback', message: 'public widget', pageUrl: 'https://a.example/' }), ok: 201 },
    { service: 'feedback', scheme: 'feedback-mcp', method: 'POST', route: '/api/v1/mcp', path: () => '/api/v1/mcp', headers: MCP_HEADERS, body: () => rpc('list_feedback', {}), ok: 200 },
    { service: 'feedback', scheme: 'public', method: 'GET', route: '/.well-known/oauth-protected-resource/api/v1/mcp', path: () => '/.well-known/oauth-protected-resource/api/v1/mcp', ok: 200 },
    { service: 'feedback', scheme: 'site-write', method: 'POST', route: '/api/v1/export/questions', path: () => '/api/v1/export/questions', body: () => ({ title: 'matrix batch', questions: [{ n: 1, title: 'Q', html: '' }] }), ok: 201 },
    { service: 'feedback', scheme: 'site-read', method: 'GET', route: '/api/v1/export/questions', path: () => '/api/v1/export/questions', ok: 200 },
    { service: 'feedback', scheme: 'site-read', method: 'GET', route: '/api/v1/export/questions/:id', path: (x) => `/api/v1/export/questions/${x.sentA}`, ok: 200, foreign: 404, foreignCode: 'NOT_FOUND' },
    { service: 'feedback', scheme: 'site-write', method: 'GET', route: '/api/v1/export/questions/:id/link', path: (x) => `/api/v1/export/questions/${x.sentA}/link`, ok: 200, foreign: 404, foreignCode: 'NOT_FOUND' },
    {
      service: 'feedback', scheme: 'site-write', method: 'PATCH', route: '/api/v1/export/questions/:id',
      path: async (x) => `/api/v1/export/questions/${(await createBatch(x.tokens.wkA, false)).id}`, body: () => ({ title: `${MARKER} edited` }), ok: 200, foreign: 404, foreignCode: 'NOT_FOUND',
    },
    {
      service: 'feedback', scheme: 'site-write', method: 'DELETE', route: '/api/v1/export/questions/:id',
      path: async (x) => `/api/v1/export/questions/${(await createBatch(x.tokens.wkA, false)).id}`, ok: 200, foreign: 404, foreignCode: 'NOT_FOUND',
    },
    {
      service: 'feedback', scheme: 'site-write', method: 'POST', route: '/api/v1/export/questions/:id/send',
      path: async (x) => `/api/v1/export/questions/${(await createBatch(x.tokens.wkA, false)).id}/send`, ok: 200, foreign: 404, foreignCode: 'NOT_FOUND',
      after: (_x, _c, res) => { const url = (res.json as any)?.data?.shareUrl; if (url) keep(String(url).split('/q/')[1]); },
    },
    { service: 'feedback', scheme: 'jwt', method: 'GET', route: '/api/v1/sites/:siteId/questions', path: (x) => `/api/v1/sites/${x.siteA.id}/questions`, ok: 200, foreign: 404, foreignCode: 'NOT_FOUND' },
    {
      service: 'feedback', scheme: 'jwt', method: 'POST', route: '/api/v1/sites/:siteId/questions', path: (x) => `/api/v1/sites/${x.siteA.id}/questions`,
      body: () => ({ title: 'matrix owner batch', questions: [{ n: 1, title: 'Q', html: '' }] }), ok: 201, foreign: 404, foreignCode: 'NOT_FOUND',
    },
    {
      service: 'feedback', scheme: 'jwt', method: 'POST', route: '/api/v1/sites/:siteId/questions/preview', path: (x) => `/api/v1/sites/${x.siteA.id}/questions/preview`,
      body: () => ({ questions: [{ n: 1, title: 'Q', html: '<b>bold</b><script>x</script>' }] }), ok: 200, foreign: 404, foreignCode: 'NOT_FOUND',
    },
    { service: 'feedback', scheme: 'jwt', method: 'GET', route: '/api/v1/sites/:siteId/questions/:batchId', path: (x) => `/api/v1/sites/${x.siteA.id}/questions/${x.sentA}`, ok: 200, foreign: 404, foreignCode: 'NOT_FOUND' },
    { service: 'feedback', scheme: 'jwt', method: 'GET', route: '/api/v1/sites/:siteId/questions/:batchId/link', path: (x) => `/api/v1/sites/${x.siteA.id}/questions/${x.sentA}/link`, ok: 200, foreign: 404, foreignCode: 'NOT_FOUND' },
    {
      service: 'feedback', scheme: 'jwt', method: 'POST', route: '/api/v1/sites/:siteId/questions/:batchId/send',
      path: async (x) => `/api/v1/sites/${x.siteA.id}/questions/${(await createBatch(x.tokens.wkA, false)).id}/send`, ok: 200, foreign: 404, foreignCode: 'NOT_FOUND',
      after: (_x, _c, res) => { const url = (res.json as any)?.data?.shareUrl; if (url) keep(String(url).split('/q/')[1]); },
    },
    { service: 'feedback', scheme: 'public', method: 'GET', route: '/q/:shareToken', path: (x) => `/q/${x.shareA}`, ok: 200 },
    { service: 'feedback', scheme: 'public', method: 'GET', route: '/api/v1/share/:shareToken', path: (x) => `/api/v1/share/${x.shareA}`, ok: 200 },
    { service: 'feedback', scheme: 'public', method: 'PUT', route: '/api/v1/share/:shareToken/answers/:n', path: (x) => `/api/v1/share/${x.shareA}/answers/1`, body: () => ({ text: 'an answer' }), ok: 200 },
    { service: 'feedback', scheme: 'public', method: 'POST', route: '/api/v1/share/:shareToken/submit', path: (x) => `/api/v1/share/${x.shareA}/submit`, ok: 200 },
    { service: 'feedback', scheme: 'public', method: 'GET', route: '/unsubscribe/:unsubscribeToken', path: (x) => `/unsubscribe/${x.unsubscribeA}`, ok: 200 },
    { service: 'feedback', scheme: 'public', method: 'POST', route: '/unsubscribe/:unsubscribeToken', path: (x) => `/unsubscribe/${x.unsubscribeA}`, ok: 200 },
    { service: 'feedback', scheme: 'public', method: 'GET', route: '/assets/app.css', path: () => '/assets/app.css', ok: 200 },
    { service: 'feedback', scheme: 'public', method: 'GET', route: '/assets/page-kit.js', path: () => '/assets/page-kit.js', ok: 200 },
    { service: 'feedback', scheme: 'public', method: 'GET', route: '/assets/webhook-panel.js', path: () => '/assets/webhook-panel.js', ok: 200 },
    { service: 'feedback', scheme: 'public', method: 'GET', route: '/assets/share.js', path: () => '/assets/share.js', ok: 200 },
    { service: 'feedback', scheme: 'public', method: 'GET', route: '/dashboard', path: () => '/dashboard', ok: 200 },
    { service: 'feedback', scheme: 'public', method: 'GET', route: '/favicon.ico', path: () => '/favicon.ico', ok: 200 },
    { service: 'feedback', scheme: 'public', method: 'GET', route: '/favicon.svg', path: () => '/favicon.svg', ok: 200 },
    { service: 'feedback', scheme: 'public', method: 'GET', route: '/assets/dashboard.js', path: () => '/assets/dashboard.js', ok: 200 },
    { service: 'feedback', scheme: 'jwt', method: 'GET', route: '/api/v1/sites/:siteId/feedback', path: (x) => `/api/v1/sites/${x.siteA.id}/feedback`, ok: 200, foreign: 404, foreignCode: 'NOT_FOUND' },
    { service: 'feedback', scheme: 'jwt', method: 'PUT', route: '/api/v1/sites/:siteId/feedback/:id', path: (x) => `/api/v1/sites/${x.siteA.id}/feedback/${x.feedbackA}`, body: () => ({ status: 'resolved' }), ok: 200, foreign: 404, foreignCode: 'NOT_FOUND' },
    // Owner triage: A's site only; B gets 404 for A's site.
    { service: 'feedback', scheme: 'jwt', method: 'GET', route: '/api/v1/sites/:siteId/feedback/search', path: (x) => `/api/v1/sites/${x.siteA.id}/feedback/search?q=feedback`, ok: 200, foreign: 404, foreignCode: 'NOT_FOUND' },
    { service: 'feedback', scheme: 'jwt', method: 'GET', route: '/api/v1/sites/:siteId/feedback/export.csv', path: (x) => `/api/v1/sites/${x.siteA.id}/feedback/export.csv`, ok: 200, foreign: 404, foreignCode: 'NOT_FOUND' },
    { service: 'feedback', scheme: 'jwt', method: 'POST', route: '/api/v1/sites/:siteId/feedback/status', path: (x) => `/api/v1/sites/${x.siteA.id}/feedback/status`, body: (x) => ({ ids: [x.feedbackA], status: 'triaged' }), ok: 200, foreign: 404, foreignCode: 'NOT_FOUND' },
    { service: 'feedback', scheme: 'jwt', method: 'GET', route: '/api/v1/feedback/new-counts', path: () => '/api/v1/feedback/new-counts', ok: 200 },
    { service: 'feedback', scheme: 'jwt', method: 'GET', route: '/api/v1/portfolio-token', path: () => '/api/v1/portfolio-token', ok: 200 },
    { service: 'feedback', scheme: 'jwt', method: 'POST', route: '/api/v1/sites/:siteId/identity-secret', path: async () => `/api/v1/sites/${await freshSite()}/identity-secret`, ok: 200, foreign: 404, foreignCode: 'NOT_FOUND' },
    // A site's webhooks: A's write token or A's owner JWT; B's token or JWT on A's site is 404 like a missing site.
    {
      service: 'feedback', scheme: 'site-write-or-jwt', method: 'POST', route: '/api/v1/sites/:siteId/webhooks',
      path: async (x) => { for (const spare of spareSiteWebhooks.splice(0)) await feedback.http.delete(`/api/v1/sites/${x.siteA.id}/webhooks/${spare}`).set(bearer(x.tokens.wkA)); return `/api/v1/sites/${x.siteA.id}/webhooks`; },
      body: () => ({ url: 'https://1.1.1.1/matrix-site-created', enabled: false }), ok: 201, foreign: 404, foreignCode: 'NOT_FOUND',
      after: (_x, c, res) => { if (res.status === 201 && (c === 'jwtA' || c === 'wkA')) { spareSiteWebhooks.push((res.json as any).data.webhook.id); keep((res.json as any).data.secret); } },
    },
    { service: 'feedback', scheme: 'site-write-or-jwt', method: 'GET', route: '/api/v1/sites/:siteId/webhooks', path: (x) => `/api/v1/sites/${x.siteA.id}/webhooks`, ok: 200, foreign: 404, foreignCode: 'NOT_FOUND' },
    { service: 'feedback', scheme: 'site-write-or-jwt', method: 'GET', route: '/api/v1/sites/:siteId/webhooks/:webhookId', path: (x) => `/api/v1/sites/${x.siteA.id}/webhooks/${x.siteWebhookA}`, ok: 200, foreign: 404, foreignCode: 'NOT_FOUND' },
    {
      service: 'feedback', scheme: 'site-write-or-jwt', method: 'PATCH', route: '/api/v1/sites/:siteId/webhooks/:webhookId', path: (x) => `/api/v1/sites/${x.siteA.id}/webhooks/${x.siteWebhookA}`,
      body: () => ({ description: `${MARKER} site webhook` }), ok: 200, foreign: 404, foreignCode: 'NOT_FOUND',
    },
    { service: 'feedback', scheme: 'site-write-or-jwt', method: 'DELETE', route: '/api/v1/sites/:siteId/webhooks/:webhookId', path: async (x) => `/api/v1/sites/${x.siteA.id}/webhooks/${await freshSiteWebhook()}`, ok: 200, foreign: 404, foreignCode: 'NOT_FOUND' },
    {
      service: 'feedback', scheme: 'site-write-or-jwt', method: 'POST', route: '/api/v1/sites/:siteId/webhooks/:webhookId/rotate-secret', path: (x) => `/api/v1/sites/${x.siteA.id}/webhooks/${x.siteWebhookA}/rotate-secret`,
      ok: 200, foreign: 404, foreignCode: 'NOT_FOUND', after: (_x, _c, res) => keep((res.json as any)?.data?.secret),
    },
    {
      service: 'feedback', scheme: 'site-write-or-jwt', method: 'POST', route: '/api/v1/sites/:siteId/webhooks/:webhookId/test', path: (x) => `/api/v1/sites/${x.siteA.id}/webhooks/${x.siteWebhookA}/test`,
      body: () => ({ eventType: 'batch.sent' }), ok: 202, foreign: 404, foreignCode: 'NOT_FOUND',
    },
    { service: 'feedback', scheme: 'site-write-or-jwt', method: 'GET', route: '/api/v1/sites/:siteId/webhooks/:webhookId/deliveries', path: (x) => `/api/v1/sites/${x.siteA.id}/webhooks/${x.siteWebhookA}/deliveries`, ok: 200, foreign: 404, foreignCode: 'NOT_FOUND' },
    {
      service: 'feedback', scheme: 'site-write-or-jwt', method: 'POST', route: '/api/v1/sites/:siteId/webhooks/:webhookId/replay', path: (x) => `/api/v1/sites/${x.siteA.id}/webhooks/${x.siteWebhookA}/replay`,
      body: () => ({ since: new Date(Date.now() - 3600_000).toISOString() }), ok: 202, foreign: 404, foreignCode: 'NOT_FOUND',
    },
    {
      service: 'feedback', scheme: 'site-write-or-jwt', method: 'POST', route: '/api/v1/sites/:siteId/webhooks/deliveries/:deliveryId/replay',
      path: (x) => `/api/v1/sites/${x.siteA.id}/webhooks/deliveries/${x.siteWebhookDeliveryA}/replay`, ok: 202, foreign: 404, foreignCode: 'NOT_FOUND',
    },
  ];

  /** A fingerprint of every row A owns, in every table with a user_id or owner_id column (and A's users row). */
  let fingerprintSql = '';
  async function fingerprintOfA(): Promise<string> {
    if (!fingerprintSql) {
      const tables: { table_name: string; column_name: string }[] = await todo.dataSource.query(
        `SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = 'public' AND column_name IN ('user_id', 'owner_id') AND table_name <> 'rate_limit_counters' ORDER BY table_name`,
      );
      const parts = tables.map((t) => `SELECT '${t.table_name}' AS t, row_to_json(r)::text AS j FROM "${t.table_name}" r WHERE r."${t.column_name}" = $1`);
      parts.push(`SELECT 'users' AS t, row_to_json(r)::text AS j FROM users r WHERE r.id = $1`);
      // Questions and answers hang off a batch, not an owner column.
      const owned = new Set(tables.map((t) => t.table_name));
      const byBatch: { table_name: string }[] = await todo.dataSource.query(
        `SELECT DISTINCT table_name FROM information_schema.columns WHERE table_schema = 'public' AND column_name = 'batch_id' ORDER BY table_name`,
      );
      for (const { table_name: name } of byBatch.filter((t) => !owned.has(t.table_name))) {
        parts.push(`SELECT '${name}' AS t, row_to_json(r)::text AS j FROM "${name}" r WHERE r.batch_id IN (SELECT id FROM question_batches WHERE owner_id = $1)`);
      }
      figures.fingerprintTables = parts.length;
      fingerprintSql = `SELECT md5(coalesce(string_agg(t || ':' || j, '|' ORDER BY t, j), '')) AS f FROM (${parts.join(' UNION ALL ')}) s`;
    }
    return (await todo.dataSource.query(fingerprintSql, [w.A.id]))[0].f;
  }

  function leaksA(text: string): boolean {
    return text.includes(MARKER) || text.includes(w.A.id) || text.toLowerCase().includes(w.A.email.toLowerCase());
  }

  async function runCell(row: Row, credential: Credential, checkWrites: boolean): Promise<void> {
    // Every cell starts with fresh rate-limit budgets: the matrix tests who may call, not how often.
    await todo.rateLimits.clear();
    const path = await row.path(w);
    const body = row.body ? await row.body(w, credential) : undefined;
    const headers = { ...(row.headers ?? {}), ...(await headersOf(credential)) };
    const before = checkWrites ? await fingerprintOfA() : '';
    const response = await call(row.service, row.send ?? row.method, path, headers, body);
    row.after?.(w, credential, response);
    figures.cells++;
    const want = expected(row, credential);
    const isJson = String(response.headers['content-type'] ?? '').includes('json');
    const code = (response.json as any)?.error?.code ?? (response.json as any)?.error?.data?.code;
    const problems: string[] = [];
    if (response.status !== want.status) problems.push(`status ${response.status}, expected ${want.status}`);
    if (want.code && response.status === want.status && code !== want.code) problems.push(`code ${code}, expected ${want.code}`);
    const protocolAnswer = row.route.startsWith('/oauth/') || row.route.startsWith('/.well-known/');
    if (isJson && !protocolAnswer && !isEnvelope(response.json) && !(row.route.endsWith('/mcp') && isJsonRpcMessage(response.json))) problems.push('not in the envelope');
    const admitted = row.listsEveryAccount === true && response.status === row.ok && want.status === row.ok;
    if (row.scheme !== 'public' && !A_VALID.includes(credential) && !admitted && leaksA(response.text)) {
      figures.crossAccountReads++;
      problems.push("answer carries A's data");
    }
    if (checkWrites && (await fingerprintOfA()) !== before) {
      figures.crossAccountWrites++;
      problems.push("A's rows changed");
    }
    if (problems.length) {
      figures.mismatches++;
      mismatchList.push(`${row.service} ${row.method} ${row.route} [${credential}]: ${problems.join('; ')} ${response.text.slice(0, 160)}`);
    }
  }

  it('has a row for every route of both services, with the scheme the route declares', () => {
    const actual = [
      ...listRoutes(todo.app).map((r) => `todo ${r.method} ${r.path} ${r.scheme}`),
      ...listRoutes(feedback.app).map((r) => `feedback ${r.method} ${r.path} ${r.scheme}`),
    ];
    expect(ROWS.map((r) => `${r.service} ${r.method} ${r.route} ${r.scheme}`).sort()).toEqual(actual.sort());
  });

  it('answers every route x credential cell as documented, with no cross-account read or write', async () => {
    // Pass 1: every credential that is not A's own valid one, with A's rows fingerprinted around each request.
    for (const row of ROWS) {
      for (const credential of CREDENTIALS) if (row.scheme !== 'public' && !A_VALID.includes(credential)) await runCell(row, credential, true);
    }
    // Pass 2: A's own credentials, and every credential on public routes (whose token in the path is the credential).
    for (const row of ROWS) {
      for (const credential of CREDENTIALS) if (row.scheme === 'public' || A_VALID.includes(credential)) await runCell(row, credential, false);
    }
    expect(figures.cells).toBe(ROWS.length * CREDENTIALS.length);
    expect(mismatchList).toEqual([]);
  }, 600_000);

  it("A's own requests did reach A's data (the leak check can fire)", async () => {
    const res = await call('todo', 'GET', `/api/v1/todos/${w.todoA}`, bearer(w.keys.keyA));
    expect(leaksA(res.text)).toBe(true);
    // ...and the write check sees a change of A's rows, also one in a table without an owner column (an answer).
    let before = await fingerprintOfA();
    await call('todo', 'PUT', `/api/v1/todos/${w.todoA}`, bearer(w.keys.keyA), { text: `${MARKER} todo, edited` });
    expect(await fingerprintOfA()).not.toBe(before);
    before = await fingerprintOfA();
    await call('feedback', 'PUT', `/api/v1/share/${w.shareA}/answers/1`, {}, { text: `edited ${randomBytes(3).toString('hex')}` });
    expect(await fingerprintOfA()).not.toBe(before);
  });

  describe('mass assignment', () => {
    const FIELDS = ['id', 'userId', 'privilege', 'siteId', 'status', 'isBetaLifetime'] as const;
    const HOSTILE: Record<(typeof FIELDS)[number], unknown> = { id: 999_999, userId: '', privilege: 'admin', siteId: '', status: 'active', isBetaLifetime: true };

    async function globalFingerprint(victimIds: string[]): Promise<string> {
      const rows = await todo.dataSource.query(
        `SELECT (SELECT count(*) FROM users) AS users, (SELECT count(*) FROM users WHERE privilege <> 'user') AS admins,
                (SELECT count(*) FROM todos) AS todos, (SELECT count(*) FROM api_keys) AS keys, (SELECT count(*) FROM sites) AS sites,
                (SELECT count(*) FROM question_batches) AS batches, (SELECT count(*) FROM subscriptions WHERE is_beta_lifetime) AS betas,
                (SELECT md5(coalesce(string_agg(row_to_json(u)::text, '|' ORDER BY u.id), '')) FROM users u WHERE u.id = ANY($1::uuid[])) AS victims,
                (SELECT md5(coalesce(string_agg(row_to_json(f)::text, '|' ORDER BY f.id), '')) FROM feedback f) AS feedback,
                (SELECT md5(coalesce(string_agg(row_to_json(s)::text, '|' ORDER BY s.id), '')) FROM sites s) AS site_rows,
                (SELECT md5(coalesce(string_agg(row_to_json(t)::text, '|' ORDER BY t.id), '')) FROM todos t) AS todo_rows`,
        [victimIds],
      );
      return JSON.stringify(rows[0]);
    }

    it('refuses extra fields (id, userId, privilege, siteId, status, isBetaLifetime) on every write and persists none', async () => {
      const victim = await insertUser(todo.dataSource);
      keep(victim.password);
      await grantBetaAccess(todo.dataSource, w.B.id);
      const jwtA = async () => bearer(await todo.accessTokenFor(w.A.id));
      const jwtVictim = async () => bearer(await todo.accessTokenFor(victim.id));
      const keyId = (await insertApiKey(todo.dataSource, w.A.id)).id;
      HOSTILE.userId = w.B.id;
      HOSTILE.siteId = w.siteA.id;
      const writes: { service: Service; method: string; path: string; headers: () => Promise<Record<string, string>>; body: Record<string, unknown> }[] = [
        { service: 'todo', method: 'POST', path: '/api/v1/auth/signup', headers: async () => ({}), body: { email: `mass-${randomBytes(3).toString('hex')}@example.test`, password: 'mass-assign-1', passwordConfirm: 'mass-assign-1' } },
        { service: 'todo', method: 'POST', path: '/api/v1/auth/login', headers: async () => ({}), body: { email: w.A.email, password: w.A.password } },
        { service: 'todo', method: 'POST', path: '/api/v1/auth/logout', headers: jwtA, body: {} },
        { service: 'todo', method: 'POST', path: '/api/v1/auth/forgot-password', headers: async () => ({}), body: { email: `nobody@example.test` } },
        { service: 'todo', method: 'POST', path: '/api/v1/auth/change-password', headers: jwtA, body: { currentPassword: w.A.password, newPassword: 'changed-by-mass-1', newPasswordConfirm: 'changed-by-mass-1' } },
        { service: 'todo', method: 'POST', path: '/api/v1/billing/checkout-session', headers: jwtA, body: {} },
        { service: 'todo', method: 'POST', path: '/api/v1/billing/subscription/cancel', headers: jwtA, body: {} },
        { service: 'todo', method: 'POST', path: '/api/v1/billing/beta/grant', headers: async () => ({ 'X-Admin-API-Key': ADMIN_KEY }), body: { userId: victim.id } },
        { service: 'todo', method: 'POST', path: '/api/v1/auth/api-keys', headers: jwtA, body: { name: 'mass' } },
        { service: 'todo', method: 'POST', path: `/api/v1/auth/api-keys/${keyId}/rotate`, headers: jwtA, body: {} },
        { service: 'todo', method: 'POST', path: '/api/v1/todos', headers: async () => bearer(w.keys.keyA), body: { text: 'mass', priority: 1, category: 'm' } },
        { service: 'todo', method: 'PUT', path: `/api/v1/todos/${w.todoA}`, headers: async () => bearer(w.keys.keyA), body: { text: 'mass changed' } },
        { service: 'todo', method: 'DELETE', path: '/api/v1/account', headers: jwtVictim, body: { password: victim.password, confirmText: 'DELETE' } },
        { service: 'feedback', method: 'POST', path: '/api/v1/sites', headers: jwtA, body: { name: 'mass site' } },
        { service: 'feedback', method: 'PATCH', path: `/api/v1/sites/${w.siteA.id}`, headers: jwtA, body: { name: 'mass renamed' } },
        { service: 'feedback', method: 'PUT', path: `/api/v1/export/feedback/${w.feedbackA}`, headers: async () => bearer(w.tokens.wkA), body: { status: 'resolved' } },
        { service: 'feedback', method: 'PUT', path: `/api/v1/sites/${w.siteA.id}/feedback/${w.feedbackA}`, headers: jwtA, body: { status: 'triaged' } },
        { service: 'feedback', method: 'POST', path: '/api/v1/widget/feedback', headers: async () => ({}), body: { siteKey: w.siteA.siteKey, type: 'bug', message: 'mass', pageUrl: 'https://a.example/' } },
        { service: 'feedback', method: 'POST', path: '/api/v1/export/questions', headers: async () => bearer(w.tokens.wkA), body: { title: 'mass', questions: [{ n: 1, title: 'Q', html: '' }] } },
        { service: 'feedback', method: 'PUT', path: `/api/v1/share/${w.shareA}/answers/1`, headers: async () => ({}), body: { text: 'mass answer' } },
      ];
      for (const write of writes) {
        for (const field of FIELDS) {
          if (field in write.body) continue;
          await todo.rateLimits.clear();
          const before = await globalFingerprint([victim.id, w.A.id]);
          const response = await call(write.service, write.method, write.path, await write.headers(), { ...write.body, [field]: HOSTILE[field] });
          figures.massAssignmentCases++;
          const after = await globalFingerprint([victim.id, w.A.id]);
          const code = (response.json as any)?.error?.code;
          if (response.status !== 400 || code !== 'VALIDATION_ERROR' || before !== after) {
            figures.massAssignmentMismatches++;
            mismatchList.push(`mass assignment ${write.method} ${write.path} +${field}: ${response.status} ${code} ${before === after ? '' : 'PERSISTED A CHANGE'}`);
          }
        }
      }
      // MCP: the tool refuses extra arguments too.
      for (const field of FIELDS) {
        const before = await globalFingerprint([w.A.id]);
        const response = await call('todo', 'POST', '/api/v1/mcp', { ...MCP_HEADERS, ...bearer(w.keys.keyA) }, rpc('create_todo', { text: 'mcp mass', priority: 1, category: 'm', [field]: HOSTILE[field] }));
        figures.massAssignmentCases++;
        const result = (response.json as any)?.result;
        if (!(response.status === 200 && result?.isError === true) || (await globalFingerprint([w.A.id])) !== before) {
          figures.massAssignmentMismatches++;
          mismatchList.push(`mass assignment MCP create_todo +${field}: ${response.status} ${response.text.slice(0, 120)}`);
        }
      }
      expect(figures.massAssignmentCases).toBeGreaterThan(100);
      expect(mismatchList.filter((m) => m.startsWith('mass assignment'))).toEqual([]);
    }, 300_000);
  });

  describe('secrets at rest and in logs', () => {
    it('a full dump of the database and the captured logs of both apps contain no secret in plain text', async () => {
      // A password reset through real mail, so a reset code, a reset token and a new password join the secrets.
      const E = await insertUser(todo.dataSource);
      keep(E.password);
      const mailsBefore = smtp.to(E.email, ACCOUNT_MAILS.resetCode).length;
      await todo.http.post('/api/v1/auth/forgot-password').send({ email: E.email }).expect(200);
      const mail = await smtp.waitFor(E.email, mailsBefore, ACCOUNT_MAILS.resetCode);
      const code = /reset code is (\d{6})/.exec(mail.raw)?.[1];
      expect(code).toMatch(/^\d{6}$/);
      const verified = await todo.http.post('/api/v1/auth/verify-reset-code').send({ email: E.email, code }).expect(200);
      const newPassword = `reset-${randomBytes(8).toString('hex')}`;
      await todo.http.post('/api/v1/auth/reset-password').send({ token: verified.body.data.token, password: newPassword, passwordConfirm: newPassword }).expect(200);
      keep(code, verified.body.data.token, newPassword, await login({ ...E, password: newPassword }));

      const dump = await dumpDatabase(todo.dataSource, database.url, usingRealPostgres());
      // The scan must be able to fire: A's e-mail address (not a secret) is in the dump.
      expect(secretsIn(dump.text, [w.A.email])).toEqual([w.A.email]);
      const list = [...secrets];
      const inDump = secretsIn(dump.text, list);
      const logText = `${todo.logs.text()}\n${feedback.logs.text()}`;
      const inLogs = secretsIn(logText, list);
      Object.assign(figures, {
        dumpMethod: dump.method, dumpTables: dump.tables, dumpRows: dump.rows, dumpBytes: dump.bytes,
        logLines: todo.logs.lines.length + feedback.logs.lines.length, secretsChecked: list.length, secretsInDump: inDump.length, secretsInLogs: inLogs.length,
      });
      expect(list.length).toBeGreaterThan(40);
      expect(inDump.map((s) => `${s.slice(0, 6)}… in dump`)).toEqual([]);
      expect(inLogs.map((s) => `${s.slice(0, 6)}… in logs`)).toEqual([]);
    }, 120_000);
  });
});
