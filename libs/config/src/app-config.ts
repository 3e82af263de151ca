import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { ConfigError, readIntVariable, readUrlVariable, readVariable, type Env } from './environment.js';

export type NodeEnv = 'development' | 'test' | 'production';

/**
 * Every setting both services read, once from the environment and validated. A variable one app
 * alone reads is that app's (todo-api's ADMIN_API_KEY and STRIPE_*: apps/todo-api/src/billing/billing.config.ts).
 */
export interface AppConfig {
  nodeEnv: NodeEnv;
  dataDir: string;
  databaseUrl?: string;
  dbPoolSize: number;
  /** How long the app waits for one database answer before giving up with 503 (DB_QUERY_TIMEOUT_MS). */
  dbQueryTimeoutMs: number;
  /** How many times the app tries to open its database at start, 1 s apart, before it fails (DB_CONNECT_ATTEMPTS). */
  dbConnectAttempts: number;
  jwtSecret: string;
  smtpUrl?: string;
  mailFrom: string;
  turnstileSecretKey?: string;
  turnstileVerifyUrl: string;
  publicBaseUrl: string;
  feedbackPublicBaseUrl: string;
  /** REDIS_URL: when set, rate-limit counters live in Redis instead of PostgreSQL. */
  redisUrl?: string;
  /** Prefix of every rate-limit key in Redis (REDIS_KEY_PREFIX), so several deployments or test files can share one server. */
  redisKeyPrefix: string;
  todoApiPort: number;
  feedbackApiPort: number;
  host: string;
  /** Express `trust proxy` value; false unless a gateway is declared. */
  trustProxy: boolean | number | string;
  /**
   * CORS_ORIGINS: the origins whose pages may call the API. `*` (any origin, reflected) is the default
   * outside production and refused in it; in production the default is the two services' own
   * public origins (the dashboard signs in at todo-api). An app's open routes (the widget) ignore it.
   */
  corsOrigins: string[] | '*';
  logLevel: string;
  /** `pretty` (a readable start block and one line per entry) or `json` (JSON lines); LOG_FORMAT, else pretty in development only. */
  logFormat: LogFormat;
  bcryptCost: number;
  /** Bearer token for GET /metrics; unset: metrics are not served (METRICS_TOKEN). */
  metricsToken?: string;
  /** How long in-flight requests may take to finish after SIGTERM (SHUTDOWN_GRACE_MS). */
  shutdownGraceMs: number;
  /** OpenTelemetry traces: exported over OTLP/HTTP only when OTEL_EXPORTER_OTLP_ENDPOINT is set. */
  tracing: TracingConfig;
  /**
   * MIGRATE_AT_START (default true): each app applies pending migrations before it listens. False where
   * a separate step runs them (the migration Job of deploy/kubernetes, `node dist/apps/migrate.js`): the
   * app then waits, before it listens, until every migration of its build is applied.
   */
  migrateAtStart: boolean;
  /**
   * Test-only (OAUTH_CLIENT_METADATA_LOOPBACK=true, refused in production): client ID metadata documents
   * at https://127.0.0.1 or https://localhost URLs are fetched over plain http from that loopback
   * address, which the authorization server otherwise never fetches from.
   */
  oauthClientMetadataLoopback: boolean;
  /**
   * Test/development only (WEBHOOKS_LOOPBACK=true, refused in production): webhook endpoints on 127.0.0.1/::1/localhost
   * are accepted and delivered to (the tests' receivers); otherwise loopback is refused like any private address.
   */
  webhooksLoopback: boolean;
  /**
   * WEBHOOK_DISABLE_AFTER_MS (default 5 days): a webhook endpoint whose attempts have all failed since the first failure
   * of its current streak at least this long ago is disabled at its next failed attempt, and its owner mailed.
   */
  webhookDisableAfterMs: number;
  /**
   * WEBHOOK_ATTEMPT_TIMEOUT_MS (default and most 5000): connect + answer of one delivery attempt. The claim lease is
   * derived from it (a batch of 50 attempts at their timeout, + 10 s), so tests that kill a replica shorten both.
   */
  webhookAttemptTimeoutMs: number;
  /** Admission control (libs/common's OverloadGate): when a replica refuses new work with 503 SERVICE_OVERLOADED. */
  overload: OverloadConfig;
  /** Passkeys' relying party (WebAuthn): from PUBLIC_BASE_URL unless WEBAUTHN_RP_ID / WEBAUTHN_ORIGIN say otherwise. */
  webauthn: WebAuthnConfig;
}

/**
 * WEBAUTHN_ORIGIN: the origin browsers run the passkey ceremonies at (default PUBLIC_BASE_URL's origin); WEBAUTHN_RP_ID:
 * the relying party id passkeys are bound to (default that origin's host name), which must be the origin's host or a
 * parent domain of it. Browsers refuse IP addresses as relying party ids: open the service at a host name.
 */
interface WebAuthnConfig {
  rpId: string;
  origin: string;
}

function readWebAuthn(env: Env, publicBaseUrl: string): WebAuthnConfig {
  const origin = new URL(readUrlVariable(env, 'WEBAUTHN_ORIGIN', ['http:', 'https:']) ?? publicBaseUrl).origin;
  const host = new URL(origin).hostname;
  const rpId = (readVariable(env, 'WEBAUTHN_RP_ID') ?? host).toLowerCase();
  if (!/^[a-z0-9.-]{1,253}$/.test(rpId) && !/^\[[0-9a-f:.]+\]$/.test(rpId)) throw new ConfigError('WEBAUTHN_RP_ID', 'must be a host name');
  if (host !== rpId && !host.endsWith(`.${rpId}`)) throw new ConfigError('WEBAUTHN_RP_ID', `must be the host of ${origin} or a parent domain of it`);
  return { rpId, origin };
}

/**
 * OVERLOAD_*: a request is refused before any work when the requests in flight reach `maxInFlight`, or when
 * the event loop's mean delay over the last window reaches `maxEventLoopDelayMs` while at least
 * `minInFlight` requests are in flight (a lone slow task with nothing queued behind it is not overload).
 */
export interface OverloadConfig {
  /** OVERLOAD_GATE=off disables the gate. */
  enabled: boolean;
  maxEventLoopDelayMs: number;
  maxInFlight: number;
  minInFlight: number;
}

function readOverload(env: Env): OverloadConfig {
  const gate = readVariable(env, 'OVERLOAD_GATE') ?? 'on';
  if (gate !== 'on' && gate !== 'off') throw new ConfigError('OVERLOAD_GATE', 'must be on or off');
  const maxInFlight = readIntVariable(env, 'OVERLOAD_MAX_IN_FLIGHT', 256, 1, 100_000);
  const minInFlight = readIntVariable(env, 'OVERLOAD_MIN_IN_FLIGHT', 64, 0, 100_000);
  if (minInFlight > maxInFlight) throw new ConfigError('OVERLOAD_MIN_IN_FLIGHT', 'must not exceed OVERLOAD_MAX_IN_FLIGHT');
  return {
    enabled: gate === 'on',
    maxEventLoopDelayMs: readIntVariable(env, 'OVERLOAD_MAX_EVENT_LOOP_DELAY_MS', 50, 1, 60_000),
    maxInFlight,
    minInFlight,
  };
}

export type LogFormat = 'json' | 'pretty';

interface TracingConfig {
  /** OTEL_EXPORTER_OTLP_ENDPOINT: the collector's base URL (`<endpoint>/v1/traces`); unset, nothing is traced. */
  endpoint?: string;
  /** OTEL_SERVICE_NAME: the spans' `service.name`; unset, each app's own name. */
  serviceName?: string;
  /** OTEL_BSP_SCHEDULE_DELAY: milliseconds between two exports of finished spans. */
  exportDelayMs: number;
}

function readTracingConfig(env: Env): TracingConfig {
  return {
    endpoint: readUrlVariable(env, 'OTEL_EXPORTER_OTLP_ENDPOINT', ['http:', 'https:']),
    serviceName: readVariable(env, 'OTEL_SERVICE_NAME'),
    exportDelayMs: readIntVariable(env, 'OTEL_BSP_SCHEDULE_DELAY', 5000, 10, 600_000),
  };
}

function readRedisKeyPrefix(env: Env): string {
  const value = readVariable(env, 'REDIS_KEY_PREFIX') ?? 'ratelimit:';
  // Glob characters would turn the prefix into a pattern when counters are searched (SCAN MATCH).
  if (!/^[A-Za-z0-9:._-]{1,64}$/.test(value)) throw new ConfigError('REDIS_KEY_PREFIX', 'may hold only letters, digits, ":", ".", "_" and "-" (at most 64)');
  return value;
}

function readTrustProxy(env: Env): AppConfig['trustProxy'] {
  const value = readVariable(env, 'TRUST_PROXY');
  if (value === undefined || value === 'false') return false;
  if (value === 'true') return true;
  if (/^[0-9]+$/.test(value)) return Number(value);
  if (!/^[a-z0-9.:/, ]+$/i.test(value)) throw new ConfigError('TRUST_PROXY', 'must be true, false, a hop count or a list of addresses/subnets');
  return value;
}

function readMigrateAtStart(env: Env): boolean {
  const value = readVariable(env, 'MIGRATE_AT_START');
  if (value === undefined || value === 'true') return true;
  if (value !== 'false') throw new ConfigError('MIGRATE_AT_START', 'must be true or false');
  return false;
}

/** DB_QUERY_TIMEOUT_MS: the apps and the migration entry point (apps/migrate.ts) read it alike. */
function readDbQueryTimeoutMs(env: Env): number {
  return readIntVariable(env, 'DB_QUERY_TIMEOUT_MS', 20_000, 500, 600_000);
}

/** What the migration entry point (apps/migrate.ts) reads: the database and the query budget, nothing an app needs. */
export interface MigrationConfig {
  databaseUrl: string;
  dbQueryTimeoutMs: number;
}

export function loadMigrationConfig(env: Env = process.env): MigrationConfig {
  const databaseUrl = readUrlVariable(env, 'DATABASE_URL', ['postgres:', 'postgresql:']);
  if (databaseUrl === undefined) throw new ConfigError('DATABASE_URL', 'is required: the migrations run against that database');
  return { databaseUrl, dbQueryTimeoutMs: readDbQueryTimeoutMs(env) };
}

function readOAuthClientMetadataLoopback(env: Env, nodeEnv: NodeEnv): boolean {
  return readLoopbackSwitch('OAUTH_CLIENT_METADATA_LOOPBACK', readVariable(env, 'OAUTH_CLIENT_METADATA_LOOPBACK'), nodeEnv);
}

function readWebhooksLoopback(env: Env, nodeEnv: NodeEnv): boolean {
  return readLoopbackSwitch('WEBHOOKS_LOOPBACK', readVariable(env, 'WEBHOOKS_LOOPBACK'), nodeEnv);
}

/** A test switch that lets an outbound fetch reach loopback: true or false, refused in production. */
function readLoopbackSwitch(name: string, value: string | undefined, nodeEnv: NodeEnv): boolean {
  if (value === undefined || value === 'false') return false;
  if (value !== 'true') throw new ConfigError(name, 'must be true or false');
  if (nodeEnv === 'production') throw new ConfigError(name, 'is a test switch and is refused when NODE_ENV=production');
  return true;
}

function readCorsOrigins(env: Env, nodeEnv: NodeEnv, ownOrigins: string[]): AppConfig['corsOrigins'] {
  const value = readVariable(env, 'CORS_ORIGINS');
  if (value === '*' && nodeEnv === 'production') throw new ConfigError('CORS_ORIGINS', 'must list origins when NODE_ENV=production (`*` is for development and tests)');
  if (value === undefined) return nodeEnv === 'production' ? [...new Set(ownOrigins)] : '*';
  if (value === '*') return '*';
  const origins = value.split(',').map((origin) => origin.trim()).filter(Boolean);
  // A browser's Origin header is scheme://host[:port], never a path or a trailing slash: anything else would never match.
  const isOrigin = (origin: string) => URL.canParse(origin) && new URL(origin).origin === origin && /^https?:$/.test(new URL(origin).protocol);
  if (origins.length === 0 || !origins.every(isOrigin)) throw new ConfigError('CORS_ORIGINS', 'must be `*` or a comma-separated list of origins (https://host[:port], no path)');
  return origins;
}

/** The address a browser on this machine uses for a listener: the wildcard addresses mean this machine. */
export function listenerUrl(host: string, port: number): string {
  const name = host === '0.0.0.0' || host === '::' ? 'localhost' : host.includes(':') ? `[${host}]` : host;
  return `http://${name}:${port}`;
}

/**
 * A service's public URL (links, OpenAPI `servers`, share links, the OAuth issuer, WWW-Authenticate,
 * the dashboard's sign-in target). Unset outside production it follows the listener (HOST and the
 * port variable), so changing only the port keeps every link working; in production there is no
 * listener address a browser could use (a gateway is in front), so it must be set.
 */
function readPublicBaseUrl(env: Env, name: string, nodeEnv: NodeEnv, host: string, port: number): string {
  const value = readUrlVariable(env, name, ['http:', 'https:']);
  if (value !== undefined) return value;
  if (nodeEnv === 'production') throw new ConfigError(name, 'is required when NODE_ENV=production (the URL browsers reach the service at, e.g. https://todo.example.com)');
  return listenerUrl(host, port);
}

/** Outside production a missing JWT secret is generated once and kept in the data directory. */
function readJwtSecret(env: Env, nodeEnv: NodeEnv, dataDir: string): string {
  const value = readVariable(env, 'JWT_SECRET');
  if (value !== undefined) {
    if (value.length < 32) throw new ConfigError('JWT_SECRET', 'must be at least 32 characters');
    return value;
  }
  if (nodeEnv === 'production') throw new ConfigError('JWT_SECRET', 'is required when NODE_ENV=production');
  const file = join(dataDir, 'jwt-secret');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const secret = randomBytes(48).toString('base64url');
  writeFileSync(file, secret, { mode: 0o600, flag: 'wx' });
  return secret;
}

export function loadConfig(env: Env = process.env): AppConfig {
  const nodeEnvRaw = readVariable(env, 'NODE_ENV') ?? 'development';
  if (!['development', 'test', 'production'].includes(nodeEnvRaw)) {
    throw new ConfigError('NODE_ENV', 'must be development, test or production');
  }
  const nodeEnv = nodeEnvRaw as NodeEnv;
  const dataDirRaw = readVariable(env, 'DATA_DIR') ?? '.data';
  const dataDir = isAbsolute(dataDirRaw) ? dataDirRaw : resolve(process.cwd(), dataDirRaw);

  const databaseUrl = readUrlVariable(env, 'DATABASE_URL', ['postgres:', 'postgresql:']);


  const logLevel = readVariable(env, 'LOG_LEVEL') ?? (nodeEnv === 'test' ? 'warn' : 'info');
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(logLevel)) {
    throw new ConfigError('LOG_LEVEL', 'must be one of fatal, error, warn, info, debug, trace, silent');
  }

  const logFormat = readVariable(env, 'LOG_FORMAT') ?? (nodeEnv === 'development' ? 'pretty' : 'json');
  if (logFormat !== 'json' && logFormat !== 'pretty') throw new ConfigError('LOG_FORMAT', 'must be json or pretty');

  const bcryptCost = readIntVariable(env, 'BCRYPT_COST', 12, nodeEnv === 'production' ? 12 : 4, 15);

  const oauthClientMetadataLoopback = readOAuthClientMetadataLoopback(env, nodeEnv);
  const webhooksLoopback = readWebhooksLoopback(env, nodeEnv);

  const metricsToken = readVariable(env, 'METRICS_TOKEN');
  if (metricsToken !== undefined && metricsToken.length < 16) throw new ConfigError('METRICS_TOKEN', 'must be at least 16 characters');

  const jwtSecret = readJwtSecret(env, nodeEnv, dataDir);
  const host = readVariable(env, 'HOST') ?? '0.0.0.0';
  const todoApiPort = readIntVariable(env, 'TODO_API_PORT', 3000, 0, 65535);
  const feedbackApiPort = readIntVariable(env, 'FEEDBACK_API_PORT', 3001, 0, 65535);
  const publicBaseUrl = readPublicBaseUrl(env, 'PUBLIC_BASE_URL', nodeEnv, host, todoApiPort);
  const feedbackPublicBaseUrl = readPublicBaseUrl(env, 'FEEDBACK_PUBLIC_BASE_URL', nodeEnv, host, feedbackApiPort);
  const corsOrigins = readCorsOrigins(env, nodeEnv, [new URL(publicBaseUrl).origin, new URL(feedbackPublicBaseUrl).origin]);

  return {
    nodeEnv,
    dataDir,
    databaseUrl,
    dbPoolSize: readIntVariable(env, 'DB_POOL_SIZE', 10, 1, 200),
    dbQueryTimeoutMs: readDbQueryTimeoutMs(env),
    dbConnectAttempts: readIntVariable(env, 'DB_CONNECT_ATTEMPTS', 10, 1, 1000),
    jwtSecret,
    smtpUrl: readUrlVariable(env, 'SMTP_URL', ['smtp:', 'smtps:']),
    mailFrom: readVariable(env, 'MAIL_FROM') ?? 'no-reply@localhost',
    turnstileSecretKey: readVariable(env, 'TURNSTILE_SECRET_KEY'),
    turnstileVerifyUrl:
      readUrlVariable(env, 'TURNSTILE_VERIFY_URL', ['http:', 'https:']) ?? 'https://challenges.cloudflare.com/turnstile/v0/siteverify',
    publicBaseUrl,
    feedbackPublicBaseUrl,
    redisUrl: readUrlVariable(env, 'REDIS_URL', ['redis:', 'rediss:']),
    redisKeyPrefix: readRedisKeyPrefix(env),
    todoApiPort,
    feedbackApiPort,
    host,
    trustProxy: readTrustProxy(env),
    corsOrigins,
    logLevel,
    logFormat,
    bcryptCost,
    metricsToken,
    shutdownGraceMs: readIntVariable(env, 'SHUTDOWN_GRACE_MS', 10_000, 0, 600_000),
    migrateAtStart: readMigrateAtStart(env),
    tracing: readTracingConfig(env),
    oauthClientMetadataLoopback,
    webhooksLoopback,
    webhookDisableAfterMs: readIntVariable(env, 'WEBHOOK_DISABLE_AFTER_MS', 5 * 24 * 60 * 60_000, 1, 365 * 24 * 60 * 60_000),
    webhookAttemptTimeoutMs: readIntVariable(env, 'WEBHOOK_ATTEMPT_TIMEOUT_MS', 5000, 100, 5000),
    overload: readOverload(env),
    webauthn: readWebAuthn(env, publicBaseUrl),
  };
}
