import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '#libs/testing';

export interface BuiltServices {
  /** Root of the private build; remove it when done. */
  root: string;
  /** Entry points, as `npm start` and the containers run them. */
  entries: { both: string; todoApi: string; feedbackExport: string };
}

/**
 * The services compiled as `npm run build` does, into a private directory of this test file
 * (with the project's `imports` map and node_modules beside it), so files that start real child
 * processes never read a `dist/` another file is rewriting.
 */
export function buildServices(): BuiltServices {
  const project = resolve('.');
  const root = mkdtempSync(join(tmpdir(), 'built-services-'));
  execFileSync(process.execPath, [join(project, 'node_modules/@swc/cli/bin/swc.js'), 'apps', 'libs', 'ormconfig.ts', '-d', join(root, 'dist'), '--copy-files', '--config-file', '.swcrc', '-q'], { stdio: 'pipe' });
  const { type, imports } = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')) as { type: string; imports: unknown };
  writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'built-services', private: true, type, imports }));
  symlinkSync(join(project, 'node_modules'), join(root, 'node_modules'), 'dir');
  return {
    root,
    entries: {
      both: join(root, 'dist/apps/main.js'),
      todoApi: join(root, 'dist/apps/todo-api/src/main.js'),
      feedbackExport: join(root, 'dist/apps/feedback-export/src/main.js'),
    },
  };
}

export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** When it exited (Date.now()). */
  at: number;
}

export interface BuiltApp {
  child: ChildProcess;
  /** `http://127.0.0.1:<port>` */
  base: string;
  /** Everything the process has written to stdout and stderr so far. */
  readonly output: string;
  exited: Promise<ProcessExit>;
  /** Kills it (SIGKILL) if it is still running and removes its data directory: for afterAll. */
  stop(): void;
}

/**
 * The built todo-api as a real child process (as `node dist/apps/todo-api/src/main.js` runs it), on
 * a free port of 127.0.0.1 with a fresh data directory, once `readyPath` answers 200. `env` adds to
 * (or overrides) PATH, NODE_ENV=test, HOST, TODO_API_PORT and DATA_DIR: it names the database, the
 * JWT secret and whatever else the test needs. `port` restarts a replica where a gateway expects it.
 */
export async function startBuiltTodoApi(built: BuiltServices, env: Record<string, string | undefined>, readyPath = '/livez', port?: number): Promise<BuiltApp> {
  return startBuiltApp(built, 'todo-api', env, readyPath, port);
}

/** The same for either app: feedback-export listens on FEEDBACK_API_PORT. */
export async function startBuiltApp(built: BuiltServices, app: 'todo-api' | 'feedback-export', env: Record<string, string | undefined>, readyPath = '/livez', port?: number): Promise<BuiltApp> {
  const dataDir = mkdtempSync(join(tmpdir(), `${app}-data-`));
  port ??= await freePort();
  const base = `http://127.0.0.1:${port}`;
  const [entry, portVariable] = app === 'todo-api' ? [built.entries.todoApi, 'TODO_API_PORT'] : [built.entries.feedbackExport, 'FEEDBACK_API_PORT'];
  const child = spawn(process.execPath, [entry], {
    env: { PATH: process.env.PATH, NODE_ENV: 'test', DATA_DIR: dataDir, HOST: '127.0.0.1', [portVariable]: String(port), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const exited = new Promise<ProcessExit>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal, at: Date.now() })));
  const stop = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 60_000;
  while ((await fetch(`${base}${readyPath}`).then((res) => res.status, () => 0)) !== 200) {
    if (child.exitCode !== null || Date.now() > deadline) {
      stop();
      throw new Error(`the app did not start:\n${output}`);
    }
    await sleep(100);
  }
  return {
    child,
    base,
    get output() {
      return output;
    },
    exited,
    stop,
  };
}
