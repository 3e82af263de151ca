import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { sourceFiles } from '../support/source-files.js';

/**
 * One seam to the database (CONTRIBUTING, "Data access"): repositories run every statement
 * through a SqlExecutor (the injected Database, or PreparedQueries) and open transactions
 * with `Database.transaction` or `PreparedQueries.transaction`, so every statement
 * answers its rows in one shape (TypeORM's own `query` answers `[rows, count]` for an UPDATE or
 * DELETE). Only libs/database (the executors themselves) and libs/testing talk to TypeORM's
 * DataSource or EntityManager directly.
 */
describe('the data layer has one seam', () => {
  const root = process.cwd();
  const files = [...sourceFiles(join(root, 'apps'), { skip: ['migrations'] }), ...sourceFiles(join(root, 'libs'), { skip: ['migrations'] })]
    .map((path) => ({ path: relative(root, path), text: readFileSync(path, 'utf8') }))
    .filter((file) => !file.path.startsWith('libs/database/') && !file.path.startsWith('libs/testing/'));

  it('runs no statement and opens no transaction on a DataSource or EntityManager outside libs/database', () => {
    const direct = files.flatMap((file) =>
      [...file.text.matchAll(/\b(?:dataSource|manager|entityManager)\s*\.\s*(query|transaction|getRepository|createQueryBuilder)\s*\(/g)].map(
        (match) => `${file.path}: ${match[0]}`,
      ),
    );
    expect(direct).toEqual([]);
  });

  it('keeps the driver out of the apps: a connection of its own (a LISTEN) is Database.dedicatedConnection, run like every executor', () => {
    const drivers = files.filter((file) => file.path.startsWith('apps/') && /from 'pg'|require\('pg'\)/.test(file.text)).map((file) => file.path);
    expect(drivers).toEqual([]);
  });

  it('opens every connection in libs/database: no other file imports the driver as a value (types are free)', () => {
    const drivers = files.filter((file) => /^import (?!type )[^;]*from 'pg';|require\('pg'\)/m.test(file.text)).map((file) => file.path);
    expect(drivers).toEqual([]);
  });

  it('runs only the rate-limit store’s own statements on the counters’ pool: no SQL is handed to it from elsewhere', () => {
    const allowed = ['libs/common/src/rate-limit/counter-connection.ts', 'libs/common/src/rate-limit/postgres-rate-limit.store.ts', 'libs/common/src/rate-limit/rate-limit.module.ts'];
    const users = files.filter((file) => /\bCounterConnection\b/.test(file.text)).map((file) => file.path);
    expect(users.filter((path) => !allowed.includes(path))).toEqual([]);
  });

  it('keeps typeorm out of the apps, and out of every service, controller, guard and repository', () => {
    const leaking = files
      .filter((file) => file.path.startsWith('apps/') || /\.(service|controller|guard|repository)\.ts$/.test(file.path))
      .filter((file) => /from '(typeorm|@nestjs\/typeorm)'|\bEntityManager\b|\bDataSource\b/.test(file.text))
      .map((file) => file.path);
    expect(leaking).toEqual([]);
  });
});
