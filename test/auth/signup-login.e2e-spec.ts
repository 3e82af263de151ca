import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { JwtService } from '@nestjs/jwt';
import { startWithDatabase, TEST_JWT_SECRET, type TestApp } from '../support/test-apps.js';
import { base64url, bearer, claimsOf, expectError, logIn, signUp, strongPassword, uniqueEmail } from './helpers.js';

describe('signup, login and access tokens', () => {
  let t: TestApp;
  const secrets: string[] = [];

  beforeAll(async () => {
    t = await startWithDatabase('todo-api');
  });
  afterAll(async () => {
    await t?.close();
  });

  async function userCount(): Promise<number> {
    return Number((await t.dataSource.query(`SELECT count(*)::int AS n FROM users`))[0].n);
  }

  describe('POST /api/v1/auth/signup', () => {
    it('creates the account and answers 201 with token data and the user', async () => {
      const email = uniqueEmail('Ada.Lovelace');
      const password = strongPassword();
      const res = await t.http.post('/api/v1/auth/signup').set('User-Agent', 'signup-test/1.0').send({ email, password, passwordConfirm: password }).expect(201);
      secrets.push(password, res.body.data.token, res.body.data.refreshToken);
      expect(res.body).toEqual({
        success: true,
        data: {
          token: expect.any(String),
          refreshToken: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
          user: {
            id: expect.stringMatching(/^[0-9a-f-]{36}$/),
            user_key: expect.stringMatching(/^usr_[0-9a-f]{24}$/),
            name: null,
            username: expect.stringMatching(/^ada\.lovelace-[0-9a-f]{8}$/),
            email,
            privilege: 'user',
            date_joined: expect.any(String),
            email_confirmed: 0,
          },
        },
      });
      const { user, token } = res.body.data;
      expect(new Date(user.date_joined).toISOString()).toBe(user.date_joined);
      const claims = claimsOf(token);
      expect(JSON.parse(Buffer.from(token.split('.')[0], 'base64url').toString())).toMatchObject({ alg: 'HS256' });
      expect(claims).toMatchObject({ sub: user.id, typ: 'access', sid: expect.any(String) });
      expect(Number(claims.exp) - Number(claims.iat)).toBe(15 * 60);
      const sessions = await t.dataSource.query(`SELECT user_agent, ip_address, refresh_token_hash FROM sessions WHERE id = $1`, [claims.sid]);
      expect(sessions).toEqual([{ user_agent: 'signup-test/1.0', ip_address: '127.0.0.1', refresh_token_hash: expect.stringMatching(/^[0-9a-f]{64}$/) }]);
      const stored = await t.dataSource.query(`SELECT password_hash FROM users WHERE id = $1`, [user.id]);
      expect(stored[0].password_hash).toMatch(/^\$2[aby]\$04\$/);
      expect(stored[0].password_hash).not.toContain(password);
      secrets.push(stored[0].password_hash, sessions[0].refresh_token_hash);
    });

    it('keeps a chosen username and refuses a taken e-mail or username whatever their case', async () => {
      const first = await signUp(t, { username: 'Grace_Hopper' });
      const again = await t.http.post('/api/v1/auth/signup').send({ email: first.email.toUpperCase(), password: strongPassword() });
      expectError(again, 409, 'EMAIL_TAKEN');
      const sameName = await t.http.post('/api/v1/auth/signup').send({ email: uniqueEmail(), password: strongPassword(), username: 'grace_HOPPER' });
      expectError(sameName, 409, 'USERNAME_TAKEN');
      const verify = await t.http.get('/api/v1/auth/verify').set(bearer(first.token)).expect(200);
      expect(verify.body.data.user.username).toBe('Grace_Hopper');
    });

    it('derives a unique username from the e-mail when none is given', async () => {
      const a = await t.http.post('/api/v1/auth/signup').send({ email: 'twin@one.example', password: strongPassword() }).expect(201);
      const b = await t.http.post('/api/v1/auth/signup').send({ email: 'twin@two.example', password: strongPassword() }).expect(201);
      expect(a.body.data.user.username).toBe('twin');
      expect(b.body.data.user.username).toMatch(/^twin_[0-9a-f]{6}$/);
      const short = await t.http.post('/api/v1/auth/signup').send({ email: 'x+1@short.example', password: strongPassword() }).expect(201);
      expect(short.body.data.user.username).toBe('userx1');
    });

    it('answers bad input with 400 VALIDATION_ERROR and writes nothing', async () => {
      const before = await userCount();
      const cases: Array<Record<string, unknown>> = [
        { password: strongPassword() },
        { email: 'not-an-email', password: strongPassword() },
        { email: uniqueEmail(), password: 'short7!' },
        { email: uniqueEmail(), password: 'x'.repeat(129) },
        { email: uniqueEmail(), password: strongPassword(), passwordConfirm: strongPassword() },
        { email: uniqueEmail(), password: strongPassword(), username: 'no spaces allowed' },
        { email: uniqueEmail(), password: strongPassword(), role: 'admin' },
        { email: uniqueEmail(), password: 12345678 },
      ];
      for (const body of cases) {
        const res = await t.http.post('/api/v1/auth/signup').send(body);
        expectError(res, 400, 'VALIDATION_ERROR');
      }
      const notObject = await t.http.post('/api/v1/auth/signup').set('Content-Type', 'application/json').send('"text"');
      expectError(notObject, 400, 'VALIDATION_ERROR');
      expect(await userCount()).toBe(before);
    });

    it('counts characters, not bytes: 128 emoji pass, 129 fail, and every byte past 72 matters', async () => {
      await signUp(t, { password: '😀'.repeat(128) });
      const tooLong = await t.http.post('/api/v1/auth/signup').send({ email: uniqueEmail(), password: '😀'.repeat(129) });
      expectError(tooLong, 400, 'VALIDATION_ERROR');
      const base = 'é'.repeat(100); // 200 bytes: far beyond bcrypt's 72
      const user = await signUp(t, { password: `${base}A` });
      expectError(await logIn(t, user.email, `${base}B`), 401, 'INVALID_CREDENTIALS');
      expect((await logIn(t, user.email, `${base}A`)).status).toBe(200);
    });

    it('lets exactly one of five concurrent signups with one e-mail (any case) through', async () => {
      const email = uniqueEmail('race');
      const variants = [email, email.toUpperCase(), email, email.replace('race', 'RACE'), email];
      const results = await Promise.all(variants.map((address) => t.http.post('/api/v1/auth/signup').send({ email: address, password: strongPassword() })));
      expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409]);
      for (const r of results.filter((r) => r.status === 409)) expect(r.body.error.code).toBe('EMAIL_TAKEN');
      const rows = await t.dataSource.query(`SELECT count(*)::int AS n FROM users WHERE lower(email) = lower($1)`, [email]);
      expect(rows[0].n).toBe(1);
    });

    it('maps a concurrent username clash to USERNAME_TAKEN', async () => {
      const results = await Promise.all(
        Array.from({ length: 4 }, () => t.http.post('/api/v1/auth/signup').send({ email: uniqueEmail(), password: strongPassword(), username: 'contested' })),
      );
      expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409, 409]);
      for (const r of results.filter((r) => r.status === 409)) expect(r.body.error.code).toBe('USERNAME_TAKEN');
    });
  });

  describe('POST /api/v1/auth/login', () => {
    it('signs in case-insensitively and opens a new session', async () => {
      const user = await signUp(t);
      const res = await logIn(t, user.email.toUpperCase(), user.password).expect(200);
      expect(res.body.data).toEqual({ token: expect.any(String), refreshToken: expect.any(String), user: expect.objectContaining({ id: user.userId, email: user.email }) });
      expect(claimsOf(res.body.data.token).sid).not.toBe(claimsOf(user.token).sid);
      secrets.push(user.password, res.body.data.token, res.body.data.refreshToken);
    });

    it('answers a wrong password and an unknown e-mail alike with 401 INVALID_CREDENTIALS', async () => {
      const user = await signUp(t);
      const wrong = await logIn(t, user.email, 'wrong-password-123');
      const unknown = await logIn(t, uniqueEmail('nobody'), 'wrong-password-123');
      expectError(wrong, 401, 'INVALID_CREDENTIALS');
      expectError(unknown, 401, 'INVALID_CREDENTIALS');
      expect(wrong.body).toEqual(unknown.body);
      expect(wrong.headers['ratelimit-limit']).toBe('10');
    });

    it('answers a missing field with 400 VALIDATION_ERROR', async () => {
      expectError(await t.http.post('/api/v1/auth/login').send({ email: uniqueEmail() }), 400, 'VALIDATION_ERROR');
      expectError(await t.http.post('/api/v1/auth/login').send({ password: 'whatever-123' }), 400, 'VALIDATION_ERROR');
    });
  });

  describe('GET /api/v1/auth/verify and the access token', () => {
    let user: Awaited<ReturnType<typeof signUp>>;
    beforeAll(async () => {
      user = await signUp(t);
    });

    it('answers the user for a valid token', async () => {
      const res = await t.http.get('/api/v1/auth/verify').set(bearer(user.token)).expect(200);
      expect(res.body.data.user).toMatchObject({ id: user.userId, email: user.email });
    });

    it('refuses a missing or malformed token with 401 AUTH_REQUIRED', async () => {
      expectError(await t.http.get('/api/v1/auth/verify'), 401, 'AUTH_REQUIRED');
      expectError(await t.http.get('/api/v1/auth/verify').set('Authorization', 'Bearer not.a.jwt'), 401, 'AUTH_REQUIRED');
      expectError(await t.http.get('/api/v1/auth/verify').set('Authorization', `Basic ${user.token}`), 401, 'AUTH_REQUIRED');
    });

    it('refuses alg none, HS512, an expired, a tampered and a foreign-secret token', async () => {
      const claims = claimsOf(user.token);
      const jwt = t.app.get(JwtService);
      const now = Math.floor(Date.now() / 1000);
      const body = { sub: claims.sub, sid: claims.sid, typ: 'access' };
      const forged = {
        none: `${base64url({ alg: 'none', typ: 'JWT' })}.${base64url({ ...body, iat: now, exp: now + 600 })}.`,
        hs512: jwt.sign(body, { algorithm: 'HS512', secret: TEST_JWT_SECRET, expiresIn: 600 }),
        expired: jwt.sign({ ...body, iat: now - 3600, exp: now - 60 }, { algorithm: 'HS256', secret: TEST_JWT_SECRET }),
        tampered: `${user.token.split('.')[0]}.${base64url({ ...claims, sub: '00000000-0000-4000-8000-000000000000' })}.${user.token.split('.')[2]}`,
        foreignSecret: jwt.sign(body, { algorithm: 'HS256', secret: 'another-secret-that-is-long-enough-0123456789', expiresIn: 600 }),
      };
      // The same claims signed properly are accepted: the refusals are about the signature and algorithm only.
      const proper = jwt.sign(body, { algorithm: 'HS256', secret: TEST_JWT_SECRET, expiresIn: 600 });
      await t.http.get('/api/v1/auth/verify').set(bearer(proper)).expect(200);
      for (const [kind, token] of Object.entries(forged)) {
        const res = await t.http.get('/api/v1/auth/verify').set(bearer(token));
        expect({ kind, status: res.status, code: res.body.error?.code }).toEqual({ kind, status: 401, code: 'AUTH_REQUIRED' });
      }
    });
  });

  it('documents every auth route in OpenAPI with its request, response and error codes', async () => {
    const doc = (await t.http.get('/api/v1/openapi.json').expect(200)).body;
    const expectations: Array<[string, string, string, string[], string | null]> = [
      ['/api/v1/auth/signup', 'post', 'signup', ['201', '400', '409', '503'], 'SignupDto'],
      ['/api/v1/auth/login', 'post', 'login', ['200', '400', '401', '429'], 'LoginDto'],
      ['/api/v1/auth/verify', 'get', 'verifyToken', ['200', '401'], null],
      ['/api/v1/auth/refresh', 'post', 'refreshToken', ['200', '400', '401'], 'RefreshDto'],
      ['/api/v1/auth/logout', 'post', 'logout', ['200', '400', '401'], 'LogoutDto'],
      ['/api/v1/auth/forgot-password', 'post', 'forgotPassword', ['200', '400', '429'], 'ForgotPasswordDto'],
      ['/api/v1/auth/verify-reset-code', 'post', 'verifyResetCode', ['200', '400'], 'VerifyResetCodeDto'],
      ['/api/v1/auth/reset-password', 'post', 'resetPassword', ['200', '400'], 'ResetPasswordDto'],
      ['/api/v1/auth/change-password', 'post', 'changePassword', ['200', '400', '401'], 'ChangePasswordDto'],
      ['/api/v1/auth/sessions', 'get', 'listSessions', ['200', '401'], null],
      ['/api/v1/auth/sessions/{sessionId}', 'delete', 'revokeSession', ['200', '400', '401', '404'], null],
    ];
    for (const [path, method, operationId, statuses, requestSchema] of expectations) {
      const operation = doc.paths[path]?.[method];
      expect({ path, operationId: operation?.operationId }).toEqual({ path, operationId });
      for (const status of statuses) expect({ path, status, documented: Boolean(operation.responses[status]) }).toEqual({ path, status, documented: true });
      if (requestSchema) expect(operation.requestBody.content['application/json'].schema.$ref).toBe(`#/components/schemas/${requestSchema}`);
    }
    expect(doc.paths['/api/v1/auth/reset-password'].post.responses['400'].description).toContain('INVALID_TOKEN');
    expect(doc.paths['/api/v1/auth/verify-reset-code'].post.responses['400'].description).toContain('INVALID_RESET_CODE');
    expect(doc.paths['/api/v1/auth/refresh'].post.responses['401'].description).toContain('INVALID_TOKEN');
    expect(Object.keys(doc.components.schemas.UserDto.properties).sort()).toEqual(
      ['date_joined', 'email', 'email_confirmed', 'id', 'name', 'privilege', 'user_key', 'username'],
    );
    expect(doc.components.schemas.SignupDto.properties.password).toMatchObject({ minLength: 8, maxLength: 128 });
    expect(doc.paths['/api/v1/auth/refresh'].post.parameters).toEqual([expect.objectContaining({ name: 'Idempotency-Key', in: 'header', required: false })]);
    expect(doc.paths['/api/v1/auth/verify'].get.security).toEqual([{ jwt: [] }]);
  });

  it('never writes a password, token or hash to the log', () => {
    expect(t.logs.lines.length).toBeGreaterThan(10);
    expect(t.logs.leaksOf(secrets)).toEqual([]);
  });
});
