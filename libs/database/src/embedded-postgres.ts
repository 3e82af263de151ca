import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeDataDirPrivate } from '#libs/config';
// Types only: the modules themselves are loaded on first start, so a service on a real
// server (DATABASE_URL) never loads PGlite (it is large and would sit in memory unused).
import type { PGlite } from '@electric-sql/pglite';
import type { PGLiteSocketServer } from '@electric-sql/pglite-socket';

export interface EmbeddedPostgresOptions {
  /** Directory of the data files; omitted: an in-memory database (tests). */
  dataDir?: string;
  /** Must be at least the pool size of every app sharing the server. */
  maxConnections: number;
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  /**
   * In-memory only: start from this tarball of a data directory (from `dump()`) instead of
   * creating a new cluster (initdb), which costs seconds of CPU. Tests use it to start each
   * file's empty database from one made once (libs/testing/src/test-database.ts).
   */
  initialData?: Blob;
}

/**
 * The embedded database's buffer pool. PGlite keeps initdb's 128MB, and its start grows with the
 * pool (about 3.5 ms a MB here: 0.6 s at 128MB on a warm data directory, 0.2 s at 16MB), paid at
 * every service start and by every test file's database. A single-session database for one
 * machine's data gains nothing from a larger pool: a miss is a read of the operating system's
 * page cache (a data directory) or of memory (in-memory databases).
 */
const EMBEDDED_SHARED_BUFFERS = '16MB';

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
      const [{ PGlite }, { PGLiteSocketServer }] = await Promise.all([import('@electric-sql/pglite'), import('@electric-sql/pglite-socket')]);
      if (options.dataDir && options.initialData) throw new Error('EmbeddedPostgres: initialData is for in-memory databases only');
      const startParams = [...PGlite.defaultStartParams, '-c', `shared_buffers=${EMBEDDED_SHARED_BUFFERS}`];
      const db = options.dataDir
        ? await PGlite.create(join(options.dataDir, 'pgdata'), { startParams })
        : await PGlite.create({ startParams, ...(options.initialData ? { loadDataDir: options.initialData } : {}) });
      // PGlite writes the files of a new database (and its relcache file at each start) with
      // chmod 0666/0644, past the umask; they are the service user's alone.
      if (options.dataDir) makeDataDirPrivate(options.dataDir);
      const host = options.host ?? '127.0.0.1';
      const server = new PGLiteSocketServer({ db, host, port: options.port ?? 0, maxConnections: options.maxConnections });
      keepExtendedQueriesTogether(server);
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

  /** A gzipped tarball of the data directory as it is now: `initialData` for another in-memory database. */
  async dump(): Promise<Blob> {
    return this.db.dumpDataDir('gzip');
  }

  async stop(): Promise<void> {
    await this.server.stop().catch(() => undefined);
    await this.db.close().catch(() => undefined);
    if (this.lockFile) rmSync(this.lockFile, { force: true });
  }
}

/** Extended-protocol messages that open or continue a batch ending at Sync. */
const EXTENDED_PROTOCOL_TYPES = new Set([0x50 /* Parse */, 0x42 /* Bind */, 0x44 /* Describe */, 0x45 /* Execute */, 0x43 /* Close */, 0x48 /* Flush */]);

interface QueuedMessage {
  handlerId: number;
  message: Uint8Array;
  resolve(bytes: number): void;
  reject(error: unknown): void;
  onData(data: Uint8Array): void;
}

/**
 * pglite-socket queues every protocol message on its own and, outside a transaction, serves
 * the connections' messages interleaved. PGlite is one session, so another connection's
 * Parse/Bind between this connection's Bind and Execute replaces the unnamed portal
 * ("portal \"\" does not exist", or worse, the other query's rows). This keeps a connection's
 * Parse..Sync batch together, as it already does for a transaction. It patches the server's
 * private queue, so package.json pins pglite-socket to an exact version (the spec beside
 * this file fails if an upgrade changes the internals).
 */
function keepExtendedQueriesTogether(server: PGLiteSocketServer): void {
  const queue = (server as unknown as { queryQueue?: any }).queryQueue;
  if (!queue || typeof queue.processQueue !== 'function' || typeof queue.clearQueueForHandler !== 'function') {
    // Running without the fix would corrupt concurrent queries: refuse instead.
    throw new Error('pglite-socket internals changed: review keepExtendedQueriesTogether before upgrading');
  }
  let batchOwner: number | null = null;
  queue.processQueue = async function processQueue(this: any): Promise<void> {
    if (this.processing || this.queue.length === 0) return;
    this.processing = true;
    try {
      while (this.queue.length > 0) {
        const owner: number | null = batchOwner ?? (this.db.isInTransaction() ? this.lastHandlerId : null);
        let item: QueuedMessage | undefined;
        if (owner !== null && owner !== undefined) {
          const index = (this.queue as QueuedMessage[]).findIndex((queued) => queued.handlerId === owner);
          item = index === -1 ? undefined : this.queue.splice(index, 1)[0];
        } else {
          item = this.queue.shift();
        }
        if (!item) break;
        let bytes = 0;
        const current = item;
        try {
          await this.db.runExclusive(() =>
            this.db.execProtocolRawStream(current.message, {
              onRawData: (data: Uint8Array) => {
                bytes += data.length;
                current.onData(data);
              },
            }),
          );
        } catch (error) {
          batchOwner = null;
          current.reject(error);
          continue;
        }
        batchOwner = EXTENDED_PROTOCOL_TYPES.has(current.message[0]) ? current.handlerId : null;
        this.lastHandlerId = current.handlerId;
        current.resolve(bytes);
      }
    } finally {
      this.processing = false;
    }
  };
  const clearQueueForHandler = queue.clearQueueForHandler.bind(queue);
  queue.clearQueueForHandler = (handlerId: number) => {
    clearQueueForHandler(handlerId);
    // A connection that went away mid-batch must not hold the others back.
    if (batchOwner === handlerId) {
      batchOwner = null;
      void queue.processQueue();
    }
  };
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
