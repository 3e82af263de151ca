import pg from 'pg';

/** pg's message when `query_timeout` passes without an answer. */
export const QUERY_READ_TIMEOUT = 'Query read timeout';

type Callback = (error: Error | null, result?: unknown) => void;

/**
 * A pg client that drops its connection when a query gets no answer within `query_timeout`.
 *
 * pg rejects the query but keeps the connection, still waiting for that answer, and hands it
 * back to the pool: on a frozen database (connections accept and then hang) every later query
 * on it would wait behind the lost one, each for its own full timeout. Destroying the socket
 * makes the pool replace the connection, so the next request fails (or succeeds) on its own
 * terms.
 */
export class FailFastClient extends pg.Client {
  constructor(config?: string | pg.ClientConfig) {
    super(config);
    // pg-pool takes its idle listener off a client as it lends it, and the borrower (TypeORM's
    // query runner) adds its own only a microtask later. When the server ends the session in that
    // instant (`pg_ctl stop -m fast` under load: the previous answer and FATAL 57P01 in one TCP
    // read), the 'error' event would find no listener and crash the process. This one keeps it an
    // event: the pool and the borrower still see the dead connection through their own listeners
    // and the failing query.
    this.on('error', () => undefined);
  }

  override query(...args: any[]): any {
    const last = args.length - 1;
    if (typeof args[last] === 'function') {
      const callback = args[last] as Callback;
      args[last] = (error: Error | null, result?: unknown) => {
        if (error?.message === QUERY_READ_TIMEOUT) this.dropConnection();
        callback(error, result);
      };
      return (super.query as (...a: any[]) => unknown)(...args);
    }
    const answer = (super.query as (...a: any[]) => unknown)(...args);
    if (answer instanceof Promise) {
      return answer.catch((error: Error) => {
        if (error?.message === QUERY_READ_TIMEOUT) this.dropConnection();
        throw error;
      });
    }
    return answer;
  }

  private dropConnection(): void {
    destroyPgClientSocket(this);
  }
}

/**
 * Destroys the socket of a node-postgres client (its `end()` waits for the server to close the
 * connection, which a frozen server never does). node-postgres offers no public way to do it;
 * the socket is `client.connection.stream`.
 */
export function destroyPgClientSocket(client: unknown): void {
  const stream = (client as { connection?: { stream?: { destroy?: () => void } } } | undefined)?.connection?.stream;
  stream?.destroy?.();
}

/**
 * Client-side and server-side timeouts for one query budget: the server cancels a statement at
 * three quarters of it (a slow but live database answers with its own error, 57014, and keeps the
 * connection), and the client gives up at the full budget when no answer comes at all.
 */
export function queryTimeouts(queryTimeoutMs: number): { statement_timeout: number; query_timeout: number } {
  return { statement_timeout: Math.floor(queryTimeoutMs * 0.75), query_timeout: queryTimeoutMs };
}
