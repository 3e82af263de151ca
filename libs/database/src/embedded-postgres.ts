import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

export interface EmbeddedPostgresOptions {
  /** Directory of the data files; omitted: an in-memory database (tests). */
  dataDir?: string;
  /** Must be at least the pool size of every app sharing the server. */
  maxConnections: number;
  host?: string;
  /** 0 picks a free port. */
  port?: number;
}

/**
 * PGlite served over the Postgres wire protocol on loopback, so the apps use the same
 * `postgres` driver as on a real server. One process owns a data directory; a lock
 * file refuses a second owner instead of corrupting the data.
 */
export class EmbeddedPostgres {
  private constructor(
    private readonly db: PGlite,
    private readonly server: PGLiteSocketServer,
    readonly url: string,
    private readonly lockFile?: string,
  ) {}

  static async start(options: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
    let lockFile: string | undefined;
    if (options.dataDir) {
      mkdirSync(options.dataDir, { recursive: true });
      lockFile = join(options.dataDir, 'embedded-postgres.pid');
      claimLock(lockFile);
    }
    try {
      const db = options.dataDir ? await PGlite.create(join(options.dataDir, 'pgdata')) : await PGlite.create();
      const host = options.host ?? '127.0.0.1';
      const server = new PGLiteSocketServer({ db, host, port: options.port ?? 0, maxConnections: options.maxConnections });
      await server.start();
      const address = (server as unknown as { server?: { address(): { port: number } | string | null } }).server?.address();
      const port = typeof address === 'object' && address ? address.port : options.port;
      const url = `postgres://postgres:postgres@${host}:${port}/postgres`;
      return new EmbeddedPostgres(db, server, url, lockFile);
    } catch (error) {
      if (lockFile) rmSync(lockFile, { force: true });
      throw error;
    }
  }

  async stop(): Promise<void> {
    await this.server.stop().catch(() => undefined);
    await this.db.close().catch(() => undefined);
    if (this.lockFile) rmSync(this.lockFile, { force: true });
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function claimLock(lockFile: string): void {
  if (existsSync(lockFile)) {
    const owner = Number(readFileSync(lockFile, 'utf8').trim());
    if (owner && owner !== process.pid && processAlive(owner)) {
      throw new Error(
        `The embedded database in ${lockFile.replace(/\/[^/]+$/, '')} is in use by process ${owner}. ` +
          'Run both services with `npm start`, or set DATABASE_URL to a PostgreSQL server.',
      );
    }
  }
  writeFileSync(lockFile, String(process.pid));
}
