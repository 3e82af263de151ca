/**
 * The migrate-only entry point (`node dist/apps/migrate.js`: the Kubernetes migration Job and
 * compose's `migrate` service) against a fresh database, with the built todo-api started with
 * MIGRATE_AT_START=false as the Deployment runs it: the app does not migrate and waits, not
 * listening, until the entry point has run, then starts and is ready; a second run finds nothing to do;
 * without DATABASE_URL it stops with one line naming the variable. Embedded database or PostgreSQL
 * (npm run test:pg), like every e2e file.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, freePort, until, withClient, type TestDatabase } from '#libs/testing';
import { buildServices, type BuiltServices } from '../support/built-services.js';

interface LogLine {
  level: number | string;
  msg: string;
  applied?: string[];
}

/**
 * Runs the built entry point to its end, as the Job's container does; JSON lines as in production.
 * Asynchronously: the embedded database is served by this very process.
 */
async function runMigrate(built: BuiltServices, env: Record<string, string | undefined>): Promise<{ status: number | null; lines: LogLine[]; output: string }> {
  const child = spawn(process.execPath, [join(built.root, 'dist/apps/migrate.js')], {
    env: { PATH: process.env.PATH, NODE_ENV: 'production', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const status = await new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  const lines = stdout
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as LogLine);
  return { status, lines, output: `${stdout}${stderr}` };
}


describe('migration entry point (dist/apps/migrate.js) with MIGRATE_AT_START=false', () => {
  let built: BuiltServices;
  let database: TestDatabase;
  let child: ChildProcess | undefined;
  const cleanup: string[] = [];

  beforeAll(async () => {
    built = buildServices();
    database = await createTestDatabase();
  }, 120_000);

  afterAll(async () => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await database?.drop();
    for (const path of [...cleanup, built?.root]) if (path) rmSync(path, { recursive: true, force: true });
  });

  it('without DATABASE_URL: exit 1 with one line naming the variable', async () => {
    const run = await runMigrate(built, {});
    expect(run.status).toBe(1);
    expect(run.lines).toHaveLength(1);
    expect(run.lines[0].msg).toContain('DATABASE_URL');
  });

  it('the app started with MIGRATE_AT_START=false leaves the schema alone and waits for the entry point before it listens', async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const dataDir = mkdtempSync(join(tmpdir(), 'migrate-job-data-'));
    cleanup.push(dataDir);
    child = spawn(process.execPath, [built.entries.todoApi], {
      env: { PATH: process.env.PATH, NODE_ENV: 'test', LOG_FORMAT: 'json', DATA_DIR: dataDir, HOST: '127.0.0.1', TODO_API_PORT: String(port), DATABASE_URL: database.url, MIGRATE_AT_START: 'false' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));

    // It says what it waits for, and meanwhile neither listens nor touches the schema.
    await until(() => output.includes('Waiting for the migrations of this build'), 60_000, 'the line saying it waits for the migrations');
    expect(child.exitCode).toBeNull();
    expect(await fetch(`${base}/livez`).then((response) => response.status, () => 'refused')).toBe('refused');
    const { rows } = await withClient(database.url, (check) => check.query<{ exists: string | null }>("SELECT to_regclass('public.schema_migrations') AS exists"));
    expect(rows[0].exists).toBeNull();

    const first = await runMigrate(built, { DATABASE_URL: database.url });
    expect({ status: first.status, output: first.output }).toEqual({ status: 0, output: first.status === 0 ? expect.any(String) : '(the output on failure)' });
    const done = first.lines.at(-1)!;
    expect(done.msg).toMatch(/^Applied \d+ migration\(s\)$/);
    expect(done.applied!.length).toBeGreaterThan(0);

    // Then it starts by itself and is ready.
    await until(async () => (await fetch(`${base}/readyz`).then((response) => response.status, () => 0)) === 200, 60_000, '/readyz 200 after the migrations');
    const ready = (await (await fetch(`${base}/readyz`)).json()) as { data: { checks: Record<string, string> } };
    expect(ready.data.checks.migrations).toBe('ok');

    const second = await runMigrate(built, { DATABASE_URL: database.url });
    expect(second.status).toBe(0);
    expect(second.lines.at(-1)).toMatchObject({ msg: 'No pending migrations', applied: [] });
  }, 180_000);
});
