/**
 * DATA_DIR is private (issue: the embedded database's files were 0666, `./.data` 0755): the
 * built services, started as `npm start` starts them, make a DATA_DIR that others could read
 * private, say so once, and everything they write under it afterwards (database files, the
 * generated JWT secret, the mail outbox) is 0600/0700. Run once on the embedded database (its
 * files live in DATA_DIR) and once on this run's database URL (secret and outbox only).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createTestDatabase, freePort, type TestDatabase } from '#libs/testing';
import { buildServices, type BuiltServices } from '../support/built-services.js';

/** Every path under `dir` (itself included) that the group or others may read, write or enter. */
function openToOthers(dir: string): string[] {
  const open: string[] = [];
  const visit = (path: string) => {
    const stats = lstatSync(path);
    if (stats.isSymbolicLink()) return;
    if ((stats.mode & 0o077) !== 0) open.push(`${path.slice(dir.length) || '/'} ${(stats.mode & 0o777).toString(8)}`);
    if (stats.isDirectory()) for (const entry of readdirSync(path)) visit(join(path, entry));
  };
  visit(dir);
  return open;
}

describe('DATA_DIR is private to the service user', () => {
  let built: BuiltServices;
  let database: TestDatabase;
  const cleanup: string[] = [];

  beforeAll(async () => {
    built = buildServices();
    database = await createTestDatabase({ migrated: true });
  }, 120_000);

  afterAll(async () => {
    await database?.drop();
    for (const path of [...cleanup, built?.root]) if (path) rmSync(path, { recursive: true, force: true });
  });

  it.each(['embedded database', 'DATABASE_URL'] as const)('on the %s: a world-readable DATA_DIR is fixed and said so; what is written afterwards is 0600/0700', async (mode) => {
    const parent = mkdtempSync(join(tmpdir(), 'private-data-'));
    cleanup.push(parent);
    // What an older version (or a copy with a loose umask) left behind.
    const dataDir = join(parent, '.data');
    mkdirSync(join(dataDir, 'outbox'), { recursive: true });
    writeFileSync(join(dataDir, 'outbox', 'old.eml.json'), '{}');
    chmodSync(dataDir, 0o777);
    chmodSync(join(dataDir, 'outbox'), 0o755);
    chmodSync(join(dataDir, 'outbox', 'old.eml.json'), 0o666);
    const todoPort = await freePort();
    const feedbackPort = await freePort();
    let output = '';
    const child: ChildProcess = spawn(process.execPath, [built.entries.both], {
      env: {
        PATH: process.env.PATH,
        NODE_ENV: 'test',
        DATA_DIR: dataDir,
        ...(mode === 'DATABASE_URL' ? { DATABASE_URL: database.url } : {}),
        BCRYPT_COST: '4',
        HOST: '127.0.0.1',
        TODO_API_PORT: String(todoPort),
        FEEDBACK_API_PORT: String(feedbackPort),
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    const exited = new Promise((resolve) => child.once('exit', resolve));
    try {
      const deadline = Date.now() + 60_000;
      for (const port of [todoPort, feedbackPort]) {
        while ((await fetch(`http://127.0.0.1:${port}/livez`).then((res) => res.status, () => 0)) !== 200) {
          if (child.exitCode !== null || Date.now() > deadline) throw new Error(`the services did not start:\n${output}`);
          await sleep(100);
        }
      }
      // Writes after start: an account (database files) and two mails in the outbox beside the old one: sign-up's
      // address confirmation and the reset code.
      const base = `http://127.0.0.1:${todoPort}/api/v1`;
      const email = `private-${Date.now()}@example.com`;
      const signup = await fetch(`${base}/auth/signup`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ email, password: 'long-enough-password-1' }) });
      expect(signup.status).toBe(201);
      const forgot = await fetch(`${base}/auth/forgot-password`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ email }) });
      expect(forgot.status).toBe(200);
      while (readdirSync(join(dataDir, 'outbox')).length < 3 && Date.now() < deadline) await sleep(50);

      expect(readdirSync(join(dataDir, 'outbox'))).toHaveLength(3);
      expect(readdirSync(dataDir)).toEqual(expect.arrayContaining(mode === 'embedded database' ? ['jwt-secret', 'outbox', 'pg'] : ['jwt-secret', 'outbox']));
      expect(openToOthers(dataDir)).toEqual([]);
      expect(output.match(/DATA_DIR was readable or writable by other users/g)).toHaveLength(1);
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
  }, 120_000);
});
