import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { loadConfig, loadMigrationConfig } from './app-config.js';
import { ConfigError } from './environment.js';

const base = { NODE_ENV: 'test', JWT_SECRET: 'x'.repeat(40) };
const PUBLIC_URLS = { PUBLIC_BASE_URL: 'https://todo.example.com', FEEDBACK_PUBLIC_BASE_URL: 'https://feedback.example.com' };

describe('loadConfig', () => {
  it('applies the documented defaults', () => {
    const config = loadConfig(base);
    expect(config.todoApiPort).toBe(3000);
    expect(config.feedbackApiPort).toBe(3001);
    expect(config.databaseUrl).toBeUndefined();
    expect(config.trustProxy).toBe(false);
    expect(config.metricsToken).toBeUndefined();
    expect(config.shutdownGraceMs).toBe(10_000);
    expect(config.dbQueryTimeoutMs).toBe(20_000);
    expect(config.dbConnectAttempts).toBe(10);
    expect(config.redisUrl).toBeUndefined();
    expect(config.redisKeyPrefix).toBe('ratelimit:');
  });

  it.each([
    ['DATABASE_URL', 'mysql://x'],
    ['DATABASE_URL', 'not a url'],
    ['TODO_API_PORT', 'eighty'],
    ['FEEDBACK_API_PORT', '70000'],
    ['SMTP_URL', 'http://mail'],
    ['NODE_ENV', 'staging'],
    ['JWT_SECRET', 'short'],
    ['LOG_LEVEL', 'loud'],
    ['LOG_FORMAT', 'yaml'],
    ['TRUST_PROXY', 'yes please!'],
    ['METRICS_TOKEN', 'short'],
    ['SHUTDOWN_GRACE_MS', '-1'],
    ['SHUTDOWN_GRACE_MS', '10s'],
    ['SHUTDOWN_GRACE_MS', '600001'],
    ['DB_QUERY_TIMEOUT_MS', '100'],
    ['DB_CONNECT_ATTEMPTS', '0'],
    ['REDIS_URL', 'http://cache:6379'],
    ['CORS_ORIGINS', 'https://app.example.com/'],
    ['CORS_ORIGINS', 'https://app.example.com/path'],
    ['CORS_ORIGINS', 'app.example.com'],
    ['CORS_ORIGINS', ' , '],
    ['REDIS_KEY_PREFIX', 'rate*limit:'],
    ['REDIS_KEY_PREFIX', 'x'.repeat(65)],
    ['MIGRATE_AT_START', 'no'],
  ])('refuses a bad %s and names it', (variable, value) => {
    expect(() => loadConfig({ ...base, [variable]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ ...base, [variable]: value })).toThrow(variable);
  });

  it('writes readable logs in development and JSON lines elsewhere unless LOG_FORMAT says otherwise', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'cfg-'));
    expect(loadConfig({ NODE_ENV: 'development', DATA_DIR: dataDir }).logFormat).toBe('pretty');
    expect(loadConfig({ ...base, ...PUBLIC_URLS, NODE_ENV: 'production' }).logFormat).toBe('json');
    expect(loadConfig(base).logFormat).toBe('json');
    expect(loadConfig({ NODE_ENV: 'development', DATA_DIR: dataDir, LOG_FORMAT: 'json' }).logFormat).toBe('json');
    expect(loadConfig({ ...base, ...PUBLIC_URLS, NODE_ENV: 'production', LOG_FORMAT: 'pretty' }).logFormat).toBe('pretty');
  });

  it('derives the public URLs from the listeners when they are unset outside production', () => {
    const ported = loadConfig({ ...base, TODO_API_PORT: '4100', FEEDBACK_API_PORT: '4101' });
    expect([ported.publicBaseUrl, ported.feedbackPublicBaseUrl]).toEqual(['http://localhost:4100', 'http://localhost:4101']);
    expect(loadConfig(base).publicBaseUrl).toBe('http://localhost:3000');
    expect(loadConfig({ ...base, HOST: '127.0.0.1', FEEDBACK_API_PORT: '4200' }).feedbackPublicBaseUrl).toBe('http://127.0.0.1:4200');
    expect(loadConfig({ ...base, HOST: '::1', TODO_API_PORT: '4300' }).publicBaseUrl).toBe('http://[::1]:4300');
    // One set, the other derived; a set one is kept as written.
    const mixed = loadConfig({ ...base, PUBLIC_BASE_URL: 'https://todo.example.com', FEEDBACK_API_PORT: '4400' });
    expect([mixed.publicBaseUrl, mixed.feedbackPublicBaseUrl]).toEqual(['https://todo.example.com', 'http://localhost:4400']);
  });

  it.each(['PUBLIC_BASE_URL', 'FEEDBACK_PUBLIC_BASE_URL'])('requires %s in production, with a one-line reason', (variable) => {
    const env = { ...base, ...PUBLIC_URLS, NODE_ENV: 'production', [variable]: undefined };
    expect(() => loadConfig(env)).toThrow(new ConfigError(variable, 'is required when NODE_ENV=production (the URL browsers reach the service at, e.g. https://todo.example.com)'));
  });

  it('derives the passkeys relying party from PUBLIC_BASE_URL, with WEBAUTHN_ORIGIN and WEBAUTHN_RP_ID overriding it', () => {
    expect(loadConfig({ ...base, PUBLIC_BASE_URL: 'https://todo.example.com/app/' }).webauthn).toEqual({ rpId: 'todo.example.com', origin: 'https://todo.example.com' });
    expect(loadConfig({ ...base, TODO_API_PORT: '4100' }).webauthn).toEqual({ rpId: 'localhost', origin: 'http://localhost:4100' });
    expect(loadConfig({ ...base, PUBLIC_BASE_URL: 'https://todo.example.com', WEBAUTHN_RP_ID: 'Example.com' }).webauthn).toEqual({ rpId: 'example.com', origin: 'https://todo.example.com' });
    expect(loadConfig({ ...base, PUBLIC_BASE_URL: 'https://todo.example.com', WEBAUTHN_ORIGIN: 'https://app.example.com' }).webauthn).toEqual({ rpId: 'app.example.com', origin: 'https://app.example.com' });
    expect(() => loadConfig({ ...base, PUBLIC_BASE_URL: 'https://todo.example.com', WEBAUTHN_RP_ID: 'other.com' })).toThrow(
      new ConfigError('WEBAUTHN_RP_ID', 'must be the host of https://todo.example.com or a parent domain of it'),
    );
    expect(() => loadConfig({ ...base, PUBLIC_BASE_URL: 'https://todo.example.com', WEBAUTHN_RP_ID: 'ample.com' })).toThrow(ConfigError);
    expect(() => loadConfig({ ...base, WEBAUTHN_ORIGIN: 'ftp://todo.example.com' })).toThrow(ConfigError);
  });

  it('reads admission control: on by default with conservative limits, OVERLOAD_GATE=off disables it, limits checked', () => {
    expect(loadConfig(base).overload).toEqual({ enabled: true, maxEventLoopDelayMs: 50, maxInFlight: 256, minInFlight: 64 });
    expect(loadConfig({ ...base, OVERLOAD_GATE: 'off' }).overload.enabled).toBe(false);
    expect(loadConfig({ ...base, OVERLOAD_MAX_IN_FLIGHT: '2', OVERLOAD_MIN_IN_FLIGHT: '1' }).overload).toMatchObject({ maxInFlight: 2, minInFlight: 1 });
    expect(() => loadConfig({ ...base, OVERLOAD_GATE: 'maybe' })).toThrow(ConfigError);
    expect(() => loadConfig({ ...base, OVERLOAD_MAX_IN_FLIGHT: '10' })).toThrow(/OVERLOAD_MIN_IN_FLIGHT/);
    expect(() => loadConfig({ ...base, OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '0' })).toThrow(ConfigError);
  });

  it('takes the WEBHOOKS_LOOPBACK test switch outside production only', () => {
    expect(loadConfig(base).webhooksLoopback).toBe(false);
    expect(loadConfig({ ...base, WEBHOOKS_LOOPBACK: 'true' }).webhooksLoopback).toBe(true);
    expect(() => loadConfig({ ...base, WEBHOOKS_LOOPBACK: 'yes' })).toThrow(new ConfigError('WEBHOOKS_LOOPBACK', 'must be true or false'));
    expect(() => loadConfig({ ...base, ...PUBLIC_URLS, NODE_ENV: 'production', WEBHOOKS_LOOPBACK: 'true' })).toThrow(
      new ConfigError('WEBHOOKS_LOOPBACK', 'is a test switch and is refused when NODE_ENV=production'),
    );
  });

  it('reads WEBHOOK_ATTEMPT_TIMEOUT_MS, 5 s by default and at most', () => {
    expect(loadConfig(base).webhookAttemptTimeoutMs).toBe(5000);
    expect(loadConfig({ ...base, WEBHOOK_ATTEMPT_TIMEOUT_MS: '500' }).webhookAttemptTimeoutMs).toBe(500);
    expect(() => loadConfig({ ...base, WEBHOOK_ATTEMPT_TIMEOUT_MS: '6000' })).toThrow(ConfigError);
  });

  it('reads WEBHOOK_DISABLE_AFTER_MS, 5 days by default', () => {
    expect(loadConfig(base).webhookDisableAfterMs).toBe(432_000_000);
    expect(loadConfig({ ...base, WEBHOOK_DISABLE_AFTER_MS: '300' }).webhookDisableAfterMs).toBe(300);
    expect(() => loadConfig({ ...base, WEBHOOK_DISABLE_AFTER_MS: '0' })).toThrow(ConfigError);
    expect(() => loadConfig({ ...base, WEBHOOK_DISABLE_AFTER_MS: '5d' })).toThrow(ConfigError);
  });

  it('requires JWT_SECRET in production', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow('JWT_SECRET');
  });

  it('refuses a bcrypt cost below 12 in production', () => {
    expect(() => loadConfig({ ...PUBLIC_URLS, NODE_ENV: 'production', JWT_SECRET: 'x'.repeat(40), BCRYPT_COST: '4' })).toThrow('BCRYPT_COST');
  });

  it('generates a JWT secret once under the data dir outside production and reuses it', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'cfg-'));
    const first = loadConfig({ NODE_ENV: 'development', DATA_DIR: dataDir });
    const second = loadConfig({ NODE_ENV: 'development', DATA_DIR: dataDir });
    expect(first.jwtSecret.length).toBeGreaterThanOrEqual(32);
    expect(second.jwtSecret).toBe(first.jwtSecret);
    expect(readFileSync(join(dataDir, 'jwt-secret'), 'utf8')).toBe(first.jwtSecret);
  });

  it('migrates at start unless MIGRATE_AT_START=false (the migration Job does it instead)', () => {
    expect(loadConfig(base).migrateAtStart).toBe(true);
    expect(loadConfig({ ...base, MIGRATE_AT_START: 'true' }).migrateAtStart).toBe(true);
    expect(loadConfig({ ...base, MIGRATE_AT_START: 'false' }).migrateAtStart).toBe(false);
  });
});

describe('loadMigrationConfig', () => {
  it('needs DATABASE_URL only, and reads the query budget as the apps do', () => {
    expect(loadMigrationConfig({ DATABASE_URL: 'postgres://u:p@db:5432/app' })).toEqual({ databaseUrl: 'postgres://u:p@db:5432/app', dbQueryTimeoutMs: 20_000 });
    expect(loadMigrationConfig({ DATABASE_URL: 'postgres://db/app', DB_QUERY_TIMEOUT_MS: '60000' }).dbQueryTimeoutMs).toBe(60_000);
    expect(() => loadMigrationConfig({})).toThrow('DATABASE_URL');
    expect(() => loadMigrationConfig({ DATABASE_URL: 'postgres://db/app', DB_QUERY_TIMEOUT_MS: '100' })).toThrow('DB_QUERY_TIMEOUT_MS');
  });
});
