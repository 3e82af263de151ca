import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startApp, startWithDatabase, type TestApp } from '../support/test-apps.js';
import { expectError, strongPassword, uniqueEmail } from './helpers.js';

const SECRET = 'turnstile-test-secret-0123456789';

/** A siteverify stand-in: `pass` succeeds, `boom` answers 500, anything else is refused. */
class VerifierServer {
  readonly requests: Array<{ contentType: string | undefined; form: Record<string, string> }> = [];
  private server?: Server;
  url = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        const form = Object.fromEntries(new URLSearchParams(body));
        this.requests.push({ contentType: req.headers['content-type'], form });
        if (form.response === 'boom') {
          res.writeHead(500).end('oops');
          return;
        }
        const success = form.secret === SECRET && form.response === 'pass';
        res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ success, 'error-codes': success ? [] : ['invalid-input-response'] }));
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', () => resolve()));
    this.url = `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}/siteverify`;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

/** A loopback URL on which nothing listens. */
async function deadUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/siteverify`;
}

describe('signup bot challenge (Turnstile)', () => {
  const verifier = new VerifierServer();
  let t: TestApp & { database: { url: string } };

  beforeAll(async () => {
    await verifier.start();
    t = await startWithDatabase('todo-api', { TURNSTILE_SECRET_KEY: SECRET, TURNSTILE_VERIFY_URL: verifier.url });
  });
  afterAll(async () => {
    await t?.close();
    await verifier.stop();
  });

  const signup = (app: TestApp, extra: Record<string, unknown>) => {
    const password = strongPassword();
    return app.http.post('/api/v1/auth/signup').send({ email: uniqueEmail('bot'), password, passwordConfirm: password, ...extra });
  };

  async function users(): Promise<number> {
    return (await t.dataSource.query(`SELECT count(*)::int AS n FROM users`))[0].n;
  }

  it('signs up with an accepted token, sending secret, response and remoteip form-encoded', async () => {
    const before = verifier.requests.length;
    await signup(t, { turnstileToken: 'pass' }).expect(201);
    expect(verifier.requests.slice(before)).toEqual([
      { contentType: expect.stringContaining('application/x-www-form-urlencoded'), form: { secret: SECRET, response: 'pass', remoteip: '127.0.0.1' } },
    ]);
  });

  it('answers a missing or refused token with 400 BOT_CHALLENGE_FAILED and creates nothing', async () => {
    const before = await users();
    const calls = verifier.requests.length;
    expectError(await signup(t, {}), 400, 'BOT_CHALLENGE_FAILED');
    expect(verifier.requests.length).toBe(calls);
    expectError(await signup(t, { turnstileToken: 'forged' }), 400, 'BOT_CHALLENGE_FAILED');
    expect(verifier.requests.length).toBe(calls + 1);
    expect(await users()).toBe(before);
  });

  it('fails closed with 503 SERVICE_UNAVAILABLE when the verifier errs or cannot be reached', async () => {
    const before = await users();
    expectError(await signup(t, { turnstileToken: 'boom' }), 503, 'SERVICE_UNAVAILABLE');
    const unreachable = await startApp('todo-api', t.database.url, { TURNSTILE_SECRET_KEY: SECRET, TURNSTILE_VERIFY_URL: await deadUrl() });
    try {
      expectError(await signup(unreachable, { turnstileToken: 'pass' }), 503, 'SERVICE_UNAVAILABLE');
    } finally {
      await unreachable.close();
    }
    expect(await users()).toBe(before);
  });

  it('needs no token when the challenge is off', async () => {
    const plain = await startApp('todo-api', t.database.url);
    try {
      await signup(plain, {}).expect(201);
    } finally {
      await plain.close();
    }
  });

  it('never writes the bot-check secret to the log', () => {
    expect(t.logs.leaksOf([SECRET])).toEqual([]);
  });
});
