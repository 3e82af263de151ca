import pg from 'pg';
import { destroyPgClientSocket } from './fail-fast-client.js';
import type { SqlExecutor } from './sql-executor.js';

/** A channel name LISTEN takes as written (an identifier cannot be a bound parameter). */
const CHANNEL_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * A connection of its own, outside the pool, for what a pooled one cannot do: LISTEN (notices arrive on the session
 * that listens, for as long as it lives) and work tied to that one database session. Made by
 * `Database.dedicatedConnection`; statements run through `query` like on every other executor, so no app holds a
 * driver client.
 */
export class DedicatedConnection implements SqlExecutor {
  private readonly client: pg.Client;

  constructor(url: string, applicationName: string) {
    this.client = new pg.Client({ connectionString: url, application_name: applicationName, keepAlive: true, connectionTimeoutMillis: 3000 });
  }

  async connect(): Promise<void> {
    await this.client.connect();
  }

  async query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]> {
    return (await this.client.query(sql, params)).rows as T[];
  }

  /** Starts listening on `channel`; each notice's payload goes to `onNotice`. */
  async listen(channel: string, onNotice: (payload: string) => void): Promise<void> {
    if (!CHANNEL_NAME.test(channel)) throw new Error(`Not a channel name: ${channel}`);
    this.client.on('notification', (message) => {
      if (message.channel === channel && message.payload) onNotice(message.payload);
    });
    await this.client.query(`LISTEN ${channel}`);
  }

  /** `lost` runs when the connection fails or the server ends it (each such event: the caller ignores repeats). */
  onLost(lost: (error?: Error) => void): void {
    this.client.on('error', lost);
    this.client.on('end', () => lost());
  }

  /** Ends the session politely: waits for the server, which a frozen one never answers (bound it, then `destroy`). */
  end(): Promise<void> {
    return this.client.end();
  }

  /** Drops the connection at once, ignoring what it says from now on. */
  destroy(): void {
    this.client.removeAllListeners();
    this.client.on('error', () => undefined);
    destroyPgClientSocket(this.client);
  }
}
