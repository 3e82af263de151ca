import type { AddressInfo } from 'node:net';
import type { NestExpressApplication } from '@nestjs/platform-express';
import supertest from 'supertest';
import { DataSource } from 'typeorm';
import { AccessTokenService } from '#libs/accounts';
import { loadConfig, type AppConfig } from '#libs/config';
import { createTestDatabase, insertSession, LogCapture, type TestDatabase } from '#libs/testing';
import { createFeedbackExportApp } from '../../apps/feedback-export/src/feedback-export.app.js';
import { createTodoApiApp } from '../../apps/todo-api/src/todo-api.app.js';

export const TEST_JWT_SECRET = 'test-jwt-secret-that-is-long-enough-for-hs256-0123456789';

/** The environment every test app starts from; a test overrides what it exercises. */
export function testEnv(overrides: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  return {
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
  /** An access token for a user, with a fresh live session. */
  accessTokenFor(userId: string): Promise<string>;
  close(): Promise<void>;
}

export type ServiceKind = 'todo-api' | 'feedback-export';

export async function startApp(kind: ServiceKind, databaseUrl: string, env: Record<string, string | undefined> = {}): Promise<TestApp> {
  const config = loadConfig(testEnv(env));
  const logs = new LogCapture();
  const create = kind === 'todo-api' ? createTodoApiApp : createFeedbackExportApp;
  const app = await create({ config, databaseUrl, logDestination: logs });
  await app.listen(0, '127.0.0.1');
  const port = (app.getHttpServer().address() as AddressInfo).port;
  const dataSource = app.get(DataSource);
  return {
    app,
    config,
    baseUrl: `http://127.0.0.1:${port}`,
    http: supertest(app.getHttpServer()),
    dataSource,
    logs,
    accessTokenFor: async (userId) => app.get(AccessTokenService).sign(userId, await insertSession(dataSource, userId)),
    close: () => app.close(),
  };
}

/** One database and one app for a test file; call in beforeAll, close in afterAll. */
export async function startWithDatabase(
  kind: ServiceKind,
  env: Record<string, string | undefined> = {},
): Promise<TestApp & { database: TestDatabase }> {
  const database = await createTestDatabase();
  const testApp = await startApp(kind, database.url, env);
  return {
    ...testApp,
    database,
    close: async () => {
      await testApp.close();
      await database.drop();
    },
  };
}
