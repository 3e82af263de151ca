/**
 * Deployment files: docker/compose.yaml is read and checked, and the nginx
 * gateway (docker/nginx/) is validated with `nginx -t` and then run for real
 * in front of two stub HTTP servers standing in for todo-api and
 * feedback-export.
 *
 * The nginx part needs /usr/sbin/nginx (or NGINX_BIN); without it that part
 * is skipped with one line (fails under CI=true). `.ci/run` and the GitHub workflow install nginx.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, readFileSync, rmSync } from 'node:fs';
import { createServer, request, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { parse } from 'yaml';
import { freePort, outsideProgramInstalled } from '#libs/testing';
import { gatewayStdout, NGINX_BIN, prepareGatewayPrefix, startTestGateway, type TestGateway } from '../support/test-gateway.js';

const HAS_NGINX = outsideProgramInstalled('gateway-config', NGINX_BIN, 'install nginx (Debian: nginx-light) or set NGINX_BIN; the compose checks still run');
const WAIT_MS = 10_000;

function findRepoRoot(): string {
  let dir = process.cwd();
  for (;;) {
    if (existsSync(join(dir, 'docker', 'compose.yaml')) && existsSync(join(dir, 'package.json'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`docker/compose.yaml not found above ${process.cwd()}`);
    dir = parent;
  }
}

const ROOT = findRepoRoot();
const NGINX_DIR = join(ROOT, 'docker', 'nginx');

// ---------------------------------------------------------------------------
// docker/compose.yaml
// ---------------------------------------------------------------------------

interface ComposeService {
  image?: string;
  build?: { context?: string; dockerfile?: string; args?: Record<string, string> };
  command?: string | string[];
  environment?: Record<string, string | number | boolean | null> | string[];
  ports?: Array<string | number | { target?: number; published?: string | number }>;
  healthcheck?: { test?: string | string[] };
  volumes?: Array<string | { type?: string; source?: string; target?: string }>;
  depends_on?: string[] | Record<string, { condition?: string }>;
}

interface ComposeFile {
  services: Record<string, ComposeService>;
  volumes?: Record<string, unknown>;
}

function environmentOf(service: ComposeService): Map<string, string | null> {
  const env = new Map<string, string | null>();
  const raw = service.environment;
  if (Array.isArray(raw)) {
    for (const entry of raw) {
      const eq = entry.indexOf('=');
      if (eq === -1) env.set(entry, null);
      else env.set(entry.slice(0, eq), entry.slice(eq + 1));
    }
  } else if (raw) {
    for (const [key, value] of Object.entries(raw)) env.set(key, value === null ? null : String(value));
  }
  return env;
}

/** Container-side ports of a service's `ports` entries. */
function containerPorts(service: ComposeService): string[] {
  return (service.ports ?? []).map((entry) => {
    if (typeof entry === 'object') return String(entry.target);
    return String(entry).split(':').pop()!.replace(/\/(tcp|udp)$/, '');
  });
}

function volumeMounts(service: ComposeService): Array<{ source: string; target: string }> {
  return (service.volumes ?? []).map((entry) => {
    if (typeof entry === 'object') return { source: entry.source ?? '', target: entry.target ?? '' };
    const [source, target] = entry.split(':');
    return { source, target };
  });
}

describe('docker/compose.yaml', () => {
  // compose resolves `<<:` merge keys (the shared build section).
  const compose = parse(readFileSync(join(ROOT, 'docker', 'compose.yaml'), 'utf8'), { merge: true }) as ComposeFile;
  const apps = [
    { name: 'todo-api', port: '3000', portVar: 'TODO_API_PORT' },
    { name: 'feedback-export', port: '3001', portVar: 'FEEDBACK_API_PORT' },
  ];

  it('declares postgres, redis, migrate, todo-api, feedback-export and gateway', () => {
    expect(Object.keys(compose.services).sort()).toEqual(['feedback-export', 'gateway', 'migrate', 'postgres', 'redis', 'todo-api']);
  });

  it('runs redis 7 with a ping healthcheck, nothing persisted, keys with an expiry evicted first', () => {
    const redis = compose.services.redis;
    expect(redis.image).toMatch(/^redis:7/);
    expect(JSON.stringify(redis.healthcheck?.test)).toContain('ping');
    const command = (redis.command as string[]).join(' ');
    expect(command).toContain('--maxmemory-policy volatile-ttl');
    expect(command).toContain('--appendonly no');
  });

  it('runs postgres 15 with a pg_isready healthcheck and a named volume', () => {
    const postgres = compose.services.postgres;
    expect(postgres.image).toMatch(/^postgres:15/);
    expect(JSON.stringify(postgres.healthcheck?.test)).toContain('pg_isready');
    const dataMount = volumeMounts(postgres).find((mount) => mount.target === '/var/lib/postgresql/data');
    expect(dataMount).toBeDefined();
    expect(Object.keys(compose.volumes ?? {})).toContain(dataMount!.source);
    expect(environmentOf(postgres).get('POSTGRES_PASSWORD')).toMatch(/^\$\{POSTGRES_PASSWORD:\?/);
  });

  for (const app of apps) {
    it(`${app.name}: builds the Dockerfile for its app, has DATABASE_URL, its port and a healthy postgres to wait for`, () => {
      const service = compose.services[app.name];
      const env = environmentOf(service);

      expect(env.get('DATABASE_URL')).toMatch(/^postgres(ql)?:\/\/.+@postgres:5432\//);
      expect(env.get('NODE_ENV')).toBe('production');
      expect(env.get('JWT_SECRET')).toMatch(/^\$\{JWT_SECRET:\?/);
      expect(env.get(app.portVar)).toBe(app.port);
      expect(env.get('TRUST_PROXY')).toBeTruthy();
      // Only the gateway publishes a port: `--scale` would clash on a fixed host port.
      expect(containerPorts(service)).toEqual([]);

      const dependsOn = service.depends_on as Record<string, { condition?: string }>;
      expect(dependsOn.postgres?.condition).toBe('service_healthy');
      // Rate limits shared by every replica: through the redis service.
      expect(env.get('REDIS_URL')).toBe('${REDIS_URL:-redis://redis:6379}');
      expect(dependsOn.redis?.condition).toBe('service_healthy');

      // The one Dockerfile, built for this app: its entry runs dist/apps/$APP/src/main.js on this port.
      expect(service.build?.args?.APP).toBe(app.name);
      const context = join(ROOT, 'docker', service.build?.context ?? '.');
      const dockerfile = readFileSync(join(context, service.build?.dockerfile ?? 'Dockerfile'), 'utf8');
      expect(dockerfile).toMatch(new RegExp(`^EXPOSE .*\\b${app.port}\\b`, 'm'));
      expect(dockerfile).toMatch(new RegExp(`^ +${app.portVar}=${app.port} `, 'm'));
      expect(dockerfile).toMatch(/^ +APP=\$\{APP\} /m);
      expect(readFileSync(join(ROOT, 'docker', 'node-entry.sh'), 'utf8')).toMatch(/"dist\/apps\/\$\{APP:\?[^}]*\}\/src\/main\.js"/);
      expect(dockerfile).toMatch(/^USER node$/m);
      // The image's own check is liveness (never restart a healthy process for a database outage);
      // compose gates traffic on readiness.
      expect(dockerfile).toMatch(/^HEALTHCHECK /m);
      expect(dockerfile).toMatch(/^ {2}CMD .*\/livez'/m);
      expect(JSON.stringify(service.healthcheck?.test)).toContain(`127.0.0.1:${app.port}/readyz`);
      expect(dependsOn.migrate?.condition).toBe('service_completed_successfully');
      expect(env.get('MIGRATE_AT_START')).toBe('false');
    });
  }

  it('gateway runs nginx with the mounted docker/nginx/gateway.conf', () => {
    const gateway = compose.services.gateway;
    expect(gateway.image).toMatch(/^nginx:1\.25/);
    const mount = volumeMounts(gateway).find((entry) => /(^|\/)nginx\/?$|gateway\.conf$/.test(entry.source));
    expect(mount).toBeDefined();
    const command = Array.isArray(gateway.command) ? gateway.command : String(gateway.command).split(/\s+/);
    const confPath = command[command.indexOf('-c') + 1];
    // The -c path lies inside the mounted directory (or is the mounted file).
    expect(confPath === mount!.target || confPath.startsWith(`${mount!.target.replace(/\/$/, '')}/`)).toBe(true);
    expect(confPath.endsWith('gateway.conf')).toBe(true);
    expect(Object.keys(gateway.depends_on ?? {})).toEqual(expect.arrayContaining(['todo-api', 'feedback-export']));
  });
});

describe('gateway upstreams (docker/nginx)', () => {
  /** The `server` lines of each upstream block, the address replaced by its app's name. */
  const serverLines = (file: string, addresses: Record<string, string>): string[] =>
    readFileSync(join(NGINX_DIR, file), 'utf8')
      .split('\n')
      .filter((line) => /^\s*server\s+\S+:/.test(line))
      .map((line) => Object.entries(addresses).reduce((out, [address, app]) => out.split(address).join(app), line.trim()));

  it('the tested template gives each replica a primary and a backup line (the form test/reliability/gateway-replicas measures); compose resolves the service names while running', () => {
    const tested = serverLines('gateway.test.conf.template', { '127.0.0.1:__TODO_PORT__': 'TODO', '127.0.0.1:__FEEDBACK_PORT__': 'FEEDBACK' });
    expect(tested).toEqual([
      'server TODO max_fails=1 fail_timeout=2s;',
      'server TODO backup max_fails=0;',
      'server FEEDBACK max_fails=1 fail_timeout=2s;',
      'server FEEDBACK backup max_fails=0;',
    ]);
    // compose: no upstream block (resolved once, at start); the names through Docker's DNS, re-resolved,
    // so `--scale` and recreated containers need no gateway restart.
    const compose = readFileSync(join(NGINX_DIR, 'gateway.conf'), 'utf8');
    expect(serverLines('gateway.conf', {})).toEqual([]);
    expect(compose).toMatch(/^\s*resolver 127\.0\.0\.11 valid=\d+s/m);
    expect(compose).toMatch(/^\s*map \$host \$gw_todo\s+\{ default todo-api:3000; \}$/m);
    expect(compose).toMatch(/^\s*map \$host \$gw_feedback\s+\{ default feedback-export:3001; \}$/m);
    // Every route proxies through a variable (a literal name would be resolved once, at start).
    const routes = readFileSync(join(NGINX_DIR, 'gateway-routes.conf'), 'utf8');
    const proxyPasses = routes.split('\n').filter((line) => /^\s*proxy_pass /.test(line));
    expect(proxyPasses.length).toBeGreaterThan(0);
    for (const line of proxyPasses) expect(line).toMatch(/proxy_pass http:\/\/\$gw_\w+;$/);
    const http = readFileSync(join(NGINX_DIR, 'gateway-http.conf'), 'utf8');
    expect(http).toMatch(/^proxy_next_upstream\s+error timeout http_502 http_503;$/m);
    // POSTs that reached a replica are not retried by the gateway (the client retries them with its Idempotency-Key).
    expect(http).not.toMatch(/^[^#\n]*non_idempotent/m);
    expect(http).toMatch(/^proxy_next_upstream_tries\s+3;$/m);
  });
});

// ---------------------------------------------------------------------------
// nginx gateway
// ---------------------------------------------------------------------------

interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

interface Echo {
  service: string;
  method: string;
  path: string;
  host?: string;
  xForwardedFor?: string;
  xForwardedProto?: string;
  xRealIp?: string;
  xRequestId?: string;
  bodyBytes: number;
}

interface Stub {
  port: number;
  server: Server;
  stop(): Promise<void>;
}


/** A stand-in app: echoes what it received as JSON, streams SSE on the events path. */
async function startStub(service: string): Promise<Stub> {
  const streams = new Set<ServerResponse>();
  const server = createServer((req, res) => {
    let bodyBytes = 0;
    req.on('data', (chunk: Buffer) => (bodyBytes += chunk.length));
    req.on('end', () => {
      const requestId = typeof req.headers['x-request-id'] === 'string' ? req.headers['x-request-id'] : undefined;
      if (requestId) res.setHeader('X-Request-Id', requestId); // the real apps echo it too
      const path = req.url ?? '';
      if (path.startsWith('/api/v1/todos/events')) {
        res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
        res.write(`event: todo.created\ndata: ${JSON.stringify({ service, path })}\n\n`);
        streams.add(res);
        res.on('close', () => streams.delete(res));
        return; // stays open, like the real stream
      }
      if (path.startsWith('/api/v1/app-error')) {
        res.writeHead(503, { 'Content-Type': 'application/json' });
        res.end('{"success":false,"error":{"code":"BILLING_UNAVAILABLE","message":"from the app"}}');
        return;
      }
      const echo: Echo = {
        service,
        method: req.method ?? '',
        path,
        host: req.headers.host,
        xForwardedFor: req.headers['x-forwarded-for'] as string | undefined,
        xForwardedProto: req.headers['x-forwarded-proto'] as string | undefined,
        xRealIp: req.headers['x-real-ip'] as string | undefined,
        xRequestId: requestId,
        bodyBytes,
      };
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ success: true, data: echo }));
    });
  });
  await new Promise<void>((ready, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => ready());
  });
  const { port } = server.address() as AddressInfo;
  let stopped = false;
  return {
    port,
    server,
    stop: () => {
      if (stopped) return Promise.resolve();
      stopped = true;
      for (const res of streams) res.destroy();
      return new Promise<void>((done) => {
        server.close(() => done());
        server.closeAllConnections();
      });
    },
  };
}

function send(
  port: number,
  path: string,
  options: { headers?: Record<string, string>; method?: string; body?: Buffer } = {},
): Promise<Reply> {
  return new Promise((resolveReply, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path, method: options.method ?? 'GET', headers: options.headers, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolveReply({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    req.setTimeout(WAIT_MS, () => req.destroy(new Error(`timed out: ${options.method ?? 'GET'} ${path}`)));
    req.on('error', reject);
    req.end(options.body);
  });
}

/** Opens an SSE response through the gateway and resolves with the first chunk, bounded in time. */
function firstStreamChunk(port: number, path: string, headers: Record<string, string> = {}): Promise<{ status: number; chunk: string }> {
  return new Promise((resolveChunk, reject) => {
    const timer = setTimeout(() => {
      req.destroy();
      reject(new Error(`no SSE data through the gateway within 3 s (${path})`));
    }, 3_000);
    const req = request({ host: '127.0.0.1', port, path, headers: { Accept: 'text/event-stream', ...headers }, agent: false }, (res) => {
      res.once('data', (chunk: Buffer) => {
        clearTimeout(timer);
        resolveChunk({ status: res.statusCode ?? 0, chunk: chunk.toString('utf8') });
        req.destroy();
      });
    });
    req.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    req.end();
  });
}

function echoOf(reply: Reply): Echo {
  expect(reply.status).toBe(200);
  return (JSON.parse(reply.body) as { data: Echo }).data;
}

function render(template: string, values: Record<string, string | number>): string {
  let out = template;
  for (const [key, value] of Object.entries(values)) {
    expect(out).toContain(key);
    out = out.split(key).join(String(value));
  }
  expect(out).not.toMatch(/__[A-Z_]+__/);
  return out;
}

function nginxTest(prefix: string, conf: string): { status: number | null; output: string } {
  const stdout = gatewayStdout(prefix);
  try {
    const result = spawnSync(NGINX_BIN, ['-t', '-e', 'stderr', '-p', `${prefix}/`, '-c', conf], {
      encoding: 'utf8',
      stdio: ['ignore', stdout, 'pipe'],
      timeout: WAIT_MS,
    });
    return { status: result.status, output: `${result.stderr ?? ''}${result.error ? String(result.error) : ''}` };
  } finally {
    closeSync(stdout);
  }
}

const describeNginx = HAS_NGINX ? describe : describe.skip;

describeNginx('nginx gateway (docker/nginx)', () => {
  const prefixes: string[] = [];
  let todo: Stub;
  let feedback: Stub;
  let gatewayPort: number;
  let rendered: string;
  let nginx: TestGateway | undefined;

  beforeAll(async () => {
    todo = await startStub('todo-api');
    feedback = await startStub('feedback-export');
    gatewayPort = await freePort();
    const template = readFileSync(join(NGINX_DIR, 'gateway.test.conf.template'), 'utf8');
    rendered = render(template, { __TODO_PORT__: todo.port, __FEEDBACK_PORT__: feedback.port, __GATEWAY_PORT__: gatewayPort });
    // Run the gateway in the foreground as a child of this process.
    nginx = await startTestGateway({ config: rendered, port: gatewayPort, readyPath: '/gateway/health', label: 'gateway' });
  }, 30_000);

  afterAll(async () => {
    await nginx?.stop();
    await Promise.all([todo?.stop(), feedback?.stop()]);
    for (const dir of prefixes) rmSync(dir, { recursive: true, force: true });
  }, 30_000);

  it('gateway.test.conf.template passes nginx -t', () => {
    const { prefix, conf } = prepareGatewayPrefix(rendered);
    prefixes.push(prefix);
    const result = nginxTest(prefix, conf);
    expect(result.output).toContain('test is successful');
    expect(result.status).toBe(0);
  });

  it('gateway.conf (the compose file) passes nginx -t with its upstream names pointed at loopback', () => {
    let topLevel = readFileSync(join(NGINX_DIR, 'gateway.conf'), 'utf8');
    // The compose service names only resolve inside the compose network.
    for (const [from, to] of [
      ['todo-api:3000', '127.0.0.1:3000'],
      ['feedback-export:3001', '127.0.0.1:3001'],
    ]) {
      expect(topLevel).toContain(from);
      topLevel = topLevel.split(from).join(to);
    }
    const compose = prepareGatewayPrefix(topLevel);
    prefixes.push(compose.prefix);
    const result = nginxTest(compose.prefix, compose.conf);
    expect(result.output).toContain('test is successful');
    expect(result.status).toBe(0);
  });

  it('routes /todo/ to todo-api with the prefix stripped and the query kept', async () => {
    const echo = echoOf(await send(gatewayPort, '/todo/api/v1/status'));
    expect(echo.service).toBe('todo-api');
    expect(echo.path).toBe('/api/v1/status');

    const withQuery = echoOf(await send(gatewayPort, '/todo/api/v1/todos?cursor=a%2Fb%3D&limit=5'));
    expect(withQuery.path).toBe('/api/v1/todos?cursor=a%2Fb%3D&limit=5');
  });

  it('routes /feedback/ to feedback-export with the prefix stripped', async () => {
    const echo = echoOf(await send(gatewayPort, '/feedback/api/v1/status'));
    expect(echo.service).toBe('feedback-export');
    expect(echo.path).toBe('/api/v1/status');

    const page = echoOf(await send(gatewayPort, '/feedback/q/tok_123'));
    expect(page.path).toBe('/q/tok_123');
  });

  it('routes by host name: todo.* and feedback.*, path unchanged', async () => {
    const toTodo = echoOf(await send(gatewayPort, '/api/v1/status', { headers: { Host: 'todo.example.test' } }));
    expect(toTodo.service).toBe('todo-api');
    expect(toTodo.path).toBe('/api/v1/status');
    expect(toTodo.host).toBe('todo.example.test');

    const toFeedback = echoOf(await send(gatewayPort, '/widget.js?v=1', { headers: { Host: 'feedback.example.test:8080' } }));
    expect(toFeedback.service).toBe('feedback-export');
    expect(toFeedback.path).toBe('/widget.js?v=1');
    expect(toFeedback.host).toBe('feedback.example.test');
  });

  it('answers unknown routes on the default host with a JSON 404', async () => {
    const reply = await send(gatewayPort, '/api/v1/status', { headers: { Host: 'localhost' } });
    expect(reply.status).toBe(404);
    expect(reply.headers['content-type']).toMatch(/^application\/json/);
    expect(JSON.parse(reply.body)).toMatchObject({ success: false, error: { code: 'NOT_FOUND' } });
    expect(reply.headers['x-request-id']).toBeTruthy();
  });

  it('propagates an incoming X-Request-Id upstream and echoes it once', async () => {
    const reply = await send(gatewayPort, '/todo/api/v1/status', { headers: { 'X-Request-Id': 'abc' } });
    expect(echoOf(reply).xRequestId).toBe('abc');
    expect(reply.headers['x-request-id']).toBe('abc');
  });

  it('generates a request id when none (or a malformed one) is sent', async () => {
    const cases: Array<Record<string, string>> = [{}, { 'X-Request-Id': 'not valid!' }, { 'X-Request-Id': 'x'.repeat(129) }];
    for (const headers of cases) {
      const reply = await send(gatewayPort, '/feedback/api/v1/status', { headers });
      const echo = echoOf(reply);
      expect(echo.xRequestId).toMatch(/^[0-9a-f]{32}$/);
      expect(reply.headers['x-request-id']).toBe(echo.xRequestId);
    }
  });

  it('sets X-Forwarded-For, X-Real-IP, X-Forwarded-Proto and Host', async () => {
    const plain = echoOf(await send(gatewayPort, '/todo/api/v1/status', { headers: { Host: 'gw.example.test' } }));
    expect(plain.xForwardedFor).toContain('127.0.0.1');
    expect(plain.xRealIp).toBe('127.0.0.1');
    expect(plain.xForwardedProto).toBe('http');
    expect(plain.host).toBe('gw.example.test');

    const chained = echoOf(await send(gatewayPort, '/todo/api/v1/status', { headers: { 'X-Forwarded-For': '203.0.113.7' } }));
    expect(chained.xForwardedFor).toBe('203.0.113.7, 127.0.0.1');
  });

  it('lets a 1.5 MiB body through to the app (the app owns the 1 MiB limit)', async () => {
    const body = Buffer.alloc(1.5 * 1024 * 1024, 'a');
    const echo = echoOf(
      await send(gatewayPort, '/todo/api/v1/todos', {
        method: 'POST',
        body,
        headers: { 'Content-Type': 'application/json', 'Content-Length': String(body.length) },
      }),
    );
    expect(echo.method).toBe('POST');
    expect(echo.bodyBytes).toBe(body.length);
  });

  it('answers a body beyond 2 MiB with a JSON 413', async () => {
    const body = Buffer.alloc(3 * 1024 * 1024, 'a');
    const reply = await send(gatewayPort, '/todo/api/v1/todos', {
      method: 'POST',
      body,
      headers: { 'Content-Type': 'application/json', 'Content-Length': String(body.length) },
    });
    expect(reply.status).toBe(413);
    expect(reply.headers['content-type']).toMatch(/^application\/json/);
    expect(JSON.parse(reply.body)).toMatchObject({ success: false, error: { code: 'PAYLOAD_TOO_LARGE' } });
  });

  it('passes the apps’ own error answers through unchanged', async () => {
    const reply = await send(gatewayPort, '/todo/api/v1/app-error');
    expect(reply.status).toBe(503);
    expect(JSON.parse(reply.body)).toMatchObject({ error: { code: 'BILLING_UNAVAILABLE', message: 'from the app' } });
  });

  it('streams server-sent events as they are written (prefix and host routes)', async () => {
    const viaPrefix = await firstStreamChunk(gatewayPort, '/todo/api/v1/todos/events?access_token=t');
    expect(viaPrefix.status).toBe(200);
    expect(viaPrefix.chunk).toContain('event: todo.created');
    expect(viaPrefix.chunk).toContain('"service":"todo-api"');
    expect(viaPrefix.chunk).toContain('"path":"/api/v1/todos/events?access_token=t"');

    const viaHost = await firstStreamChunk(gatewayPort, '/api/v1/todos/events', { Host: 'todo.example.test' });
    expect(viaHost.status).toBe(200);
    expect(viaHost.chunk).toContain('"service":"todo-api"');
    expect(viaHost.chunk).toContain('"path":"/api/v1/todos/events"');
  });

  it('never forwards /metrics (prefix or host routes): the scrape is for each replica’s own address', async () => {
    for (const [path, headers] of [
      ['/todo/metrics', {}],
      ['/feedback/metrics', {}],
      ['/metrics', { Host: 'todo.example.test' }],
      ['/metrics/', { Host: 'feedback.example.test' }],
      ['/todo/%6detrics', {}],
    ] as const) {
      const reply = await send(gatewayPort, path, { headers });
      expect(reply.status).toBe(404);
      expect(JSON.parse(reply.body)).toEqual({ success: false, error: { code: 'NOT_FOUND', message: 'No such resource' } });
    }
    // Probes and everything else still pass.
    expect(echoOf(await send(gatewayPort, '/todo/readyz')).path).toBe('/readyz');
    expect(echoOf(await send(gatewayPort, '/todo/api/v1/metrics-report')).path).toBe('/api/v1/metrics-report');
  });

  it('answers 502 in the JSON envelope when an app is down', async () => {
    await feedback.stop();
    for (const [path, headers] of [
      ['/feedback/api/v1/status', {}],
      ['/api/v1/status', { Host: 'feedback.example.test' }],
    ] as const) {
      const reply = await send(gatewayPort, path, { headers: { ...headers, 'X-Request-Id': 'down-1' } });
      expect(reply.status).toBe(502);
      expect(reply.headers['content-type']).toMatch(/^application\/json/);
      expect(JSON.parse(reply.body)).toEqual({
        success: false,
        error: { code: 'SERVICE_UNAVAILABLE', message: expect.any(String) },
      });
      expect(reply.headers['x-request-id']).toBe('down-1');
    }
    // The other app is unaffected.
    expect(echoOf(await send(gatewayPort, '/todo/api/v1/status')).service).toBe('todo-api');
  });
});
