import type { AddressInfo } from 'node:net';
import { mkdirSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { expect } from '@jest/globals';
import type { NestExpressApplication } from '@nestjs/platform-express';
import supertest from 'supertest';
import { DataSource } from 'typeorm';
import { AccessTokenService } from '#libs/identity';
import { loadConfig, type AppConfig } from '#libs/config';
import { createTestDatabase, insertSession, LogCapture, RateLimitCounters, type TestDatabase } from '#libs/testing';
import { createFeedbackExportApp } from '../../apps/feedback-export/src/feedback-export.app.js';
import { loadQuotaConfig } from '../../apps/feedback-export/src/sites/quota.config.js';
import { loadBillingConfig } from '../../apps/todo-api/src/billing/billing.config.js';
import { loadBreachedPasswordsConfig } from '../../libs/identity/src/breached-passwords/breached-passwords.config.js';
import { createTodoApiApp } from '../../apps/todo-api/src/todo-api.app.js';

export const TEST_JWT_SECRET = 'test-jwt-secret-that-is-long-enough-for-hs256-0123456789';

/** The /readyz checks the apps of this run add beyond database and migrations: `redis` under `npm run test:redis`. */
export const EXTRA_READINESS_CHECKS: Record<string, 'ok'> = process.env.REDIS_URL ? { redis: 'ok' } : {};

/**
 * With REDIS_URL set in the test run's environment (`npm run test:redis`), every app keeps its
 * rate-limit counters there, each test file under its own key prefix (replicas of one file share it).
 */
export function redisTestEnv(): Record<string, string | undefined> {
  if (!process.env.REDIS_URL) return {};
  const file = basename(expect.getState().testPath ?? 'unknown').replace(/[^A-Za-z0-9._-]/g, '_');
  return { REDIS_URL: process.env.REDIS_URL, REDIS_KEY_PREFIX: `test:${file}:${process.pid}:` };
}

/** The environment every test app starts from; a test overrides what it exercises. */
export function testEnv(overrides: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  return {
    ...redisTestEnv(),
    NODE_ENV: 'test',
    JWT_SECRET: TEST_JWT_SECRET,
    BCRYPT_COST: '4',
    LOG_LEVEL: 'info',
    DATA_DIR: `${process.cwd()}/.data/test-${process.pid}`,
    DB_POOL_SIZE: '5',
    HOST: '127.0.0.1',
    ...overrides,
  };
}

export interface TestApp {
  app: NestExpressApplication;
  config: AppConfig;
  baseUrl: string;
  http: ReturnType<typeof supertest>;
  dataSource: DataSource;
  logs: LogCapture;
  /** The rate-limit counters of the store this app uses (PostgreSQL or Redis). */
  rateLimits: RateLimitCounters;
  /** An access token for a user, with a fresh live session. */
  accessTokenFor(userId: string): Promise<string>;
  close(): Promise<void>;
}

export type ServiceKind = 'todo-api' | 'feedback-export';

export interface StartOptions {
  /** Listen on this port instead of any free one (a test whose PUBLIC_BASE_URL must be the real address, e.g. an OAuth issuer). */
  port?: number;
}

export async function startApp(kind: ServiceKind, databaseUrl: string, env: Record<string, string | undefined> = {}, options: StartOptions = {}): Promise<TestApp> {
  const config = loadConfig(testEnv(env));
  const logs = new LogCapture();
  const app =
    kind === 'todo-api'
      ? await createTodoApiApp({ config, billing: loadBillingConfig(testEnv(env)), breachedPasswords: loadBreachedPasswordsConfig(testEnv(env)), databaseUrl, logDestination: logs })
      : await createFeedbackExportApp({ config, quotas: loadQuotaConfig(testEnv(env)), databaseUrl, logDestination: logs });
  await app.listen(options.port ?? 0, '127.0.0.1');
  const port = (app.getHttpServer().address() as AddressInfo).port;
  const dataSource = app.get(DataSource);
  const rateLimits = new RateLimitCounters(dataSource, config.redisUrl ? { url: config.redisUrl, keyPrefix: config.redisKeyPrefix } : undefined);
  return {
    app,
    config,
    baseUrl: `http://127.0.0.1:${port}`,
    http: supertest(app.getHttpServer()),
    dataSource,
    logs,
    rateLimits,
    accessTokenFor: async (userId) => app.get(AccessTokenService).sign(userId, await insertSession(dataSource, userId)),
    close: async () => {
      rateLimits.close();
      await app.close();
    },
  };
}

/** One database and one app for a test file; call in beforeAll, close in afterAll. */
export async function startWithDatabase(
  kind: ServiceKind,
  env: Record<string, string | undefined> = {},
  options: StartOptions = {},
): Promise<TestApp & { database: TestDatabase }> {
  // Already migrated (embedded): the app's start finds nothing pending, as on any restart.
  const database = await createTestDatabase({ migrated: true });
  const testApp = await startApp(kind, database.url, env, options);
  return {
    ...testApp,
    database,
    close: async () => {
      // With Redis storage no counter may land in PostgreSQL: checked for every test file, and
      // the file's Redis keys are counted for scripts/test-redis.mjs.
      const storage = testApp.config.redisUrl ? await recordCounterStorage(testApp) : undefined;
      await testApp.close();
      await database.drop();
      if (storage && storage.postgresRows > 0) throw new Error(`REDIS_URL is set, yet ${storage.postgresRows} rate-limit counters were written to PostgreSQL`);
    },
  };
}

/**
 * What the owner dashboard needs: one database, the account service (todo-api, where the dashboard
 * signs in) and feedback-export pointing its public links at it. Call in beforeAll, close in afterAll.
 * Also the way for any test file that needs both services on one database.
 */
export async function startDashboardApps(
  feedbackEnv: Record<string, string | undefined> = {},
  todoEnv: Record<string, string | undefined> = {},
): Promise<{ database: TestDatabase; todo: TestApp; feedback: TestApp; close: () => Promise<void> }> {
  const database = await createTestDatabase({ migrated: true });
  const todo = await startApp('todo-api', database.url, todoEnv);
  const feedback = await startApp('feedback-export', database.url, { PUBLIC_BASE_URL: todo.baseUrl, ...feedbackEnv });
  return {
    database,
    todo,
    feedback,
    close: async () => {
      await feedback.close();
      await todo.close();
      await database.drop();
    },
  };
}

/** Where scripts/test-redis.mjs finds, per test file, the counters in PostgreSQL and in Redis. */
export const COUNTER_STORAGE_DIR = join(process.cwd(), 'test-results', 'rate-limit-storage');

async function recordCounterStorage(testApp: TestApp): Promise<{ postgresRows: number; redisKeys: number }> {
  const rows: Array<{ n: number }> = await testApp.dataSource.query(`SELECT count(*)::int AS n FROM rate_limit_counters`);
  const figures = { postgresRows: rows[0].n, redisKeys: (await testApp.rateLimits.keys()).length };
  const file = basename(expect.getState().testPath ?? 'unknown');
  mkdirSync(COUNTER_STORAGE_DIR, { recursive: true });
  writeFileSync(join(COUNTER_STORAGE_DIR, `${file}.json`), `${JSON.stringify({ file, ...figures })}\n`);
  return figures;
}
