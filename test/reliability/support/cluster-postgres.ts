import { spawn, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { freePort } from '#libs/testing';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The newest Debian PostgreSQL bin directory (/usr/lib/postgresql/<version>/bin), or undefined. */
export function postgresBinDir(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((entry) => /^[0-9]+$/.test(entry) && existsSync(join(root, entry, 'bin', 'pg_ctl')) && existsSync(join(root, entry, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length > 0 ? join(root, versions[0], 'bin') : undefined;
}


/** PostgreSQL refuses to run as root: as root, its tools run as the `postgres` OS user. */
function asPostgresUser(command: string, args: string[]): [string, string[]] {
  return process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];
}

/**
 * Runs a PostgreSQL tool without blocking the event loop (the apps under test share this
 * process and must keep answering while the server stops and starts). Resolves on exit,
 * not on stream close: the postmaster started by pg_ctl would hold inherited pipes open.
 */
function run(command: string, args: string[], timeoutMs = 60_000): Promise<string> {
  const [file, argv] = asPostgresUser(command, args);
  return new Promise((resolve, reject) => {
    const child = spawn(file, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      child.stdout.destroy();
      child.stderr.destroy();
      if (code === 0) resolve(output);
      else reject(new Error(`${command} ${args.join(' ')} exited with ${code ?? signal}:\n${output}`));
    });
  });
}

/**
 * A private PostgreSQL cluster for one test: initdb into a temp directory, a free loopback
 * port, trust authentication for the `postgres` role. The test stops and starts the server
 * itself (pg_ctl), which is what a database outage looks like to the apps.
 */
export class PrivatePostgresCluster {
  port = 0;
  readonly dir: string;
  private readonly dataDir: string;
  private readonly logFile: string;

  private constructor(private readonly binDir: string) {
    this.dir = mkdtempSync(join(tmpdir(), 'reliability-pg-'));
    this.dataDir = join(this.dir, 'data');
    this.logFile = join(this.dir, 'postgres.log');
  }

  static async create(binDir: string): Promise<PrivatePostgresCluster> {
    const cluster = new PrivatePostgresCluster(binDir);
    if (process.getuid?.() === 0) {
      const uid = Number(spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).stdout.trim());
      const gid = Number(spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).stdout.trim());
      if (!Number.isInteger(uid) || !Number.isInteger(gid)) throw new Error('running as root, but there is no `postgres` OS user to run PostgreSQL as');
      chownSync(cluster.dir, uid, gid);
    }
    cluster.port = await freePort();
    await run(join(binDir, 'initdb'), ['-D', cluster.dataDir, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--no-sync', '--no-instructions']);
    await cluster.start();
    return cluster;
  }

  /** postgres://postgres@127.0.0.1:<port>/<database> */
  url(database = 'postgres'): string {
    return `postgres://postgres@127.0.0.1:${this.port}/${database}`;
  }

  async start(): Promise<void> {
    const options = `-p ${this.port} -c listen_addresses=127.0.0.1 -k ${this.dir} -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=100`;
    await run(join(this.binDir, 'pg_ctl'), ['start', '-w', '-t', '60', '-D', this.dataDir, '-l', this.logFile, '-o', options]);
  }

  /** Fast shutdown: open connections are terminated, new ones refused, as when an operator stops the server. */
  async stop(): Promise<void> {
    await run(join(this.binDir, 'pg_ctl'), ['stop', '-w', '-t', '60', '-m', 'fast', '-D', this.dataDir]);
  }

  log(): string {
    return existsSync(this.logFile) ? readFileSync(this.logFile, 'utf8') : '';
  }

  async destroy(): Promise<void> {
    await run(join(this.binDir, 'pg_ctl'), ['stop', '-w', '-t', '30', '-m', 'immediate', '-D', this.dataDir]).catch(() => undefined);
    rmSync(this.dir, { recursive: true, force: true });
  }
}
