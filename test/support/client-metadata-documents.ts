import { createServer, type OutgoingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { freePort } from '#libs/testing';
import { startApp, startWithDatabase, type TestApp } from './test-apps.js';

/**
 * Where agents host their OAuth client ID metadata documents, on 127.0.0.1: `serve(path, document)`
 * answers the client_id URL of a document (https, as client ids must be; the app reads it over http
 * through OAUTH_CLIENT_METADATA_LOOPBACK) and `served[path].hits` counts its fetches. An unknown
 * path is a 404. `headers` go with every document.
 */
export class ClientMetadataDocuments {
  readonly served: Record<string, { body: string; hits: number }> = {};
  /** `https://127.0.0.1:<port>` once started. */
  base = '';
  private readonly server: Server;

  constructor(headers: OutgoingHttpHeaders = {}) {
    this.server = createServer((request, response) => {
      const entry = this.served[request.url ?? ''];
      if (!entry) return void response.writeHead(404).end();
      entry.hits++;
      response.writeHead(200, { 'Content-Type': 'application/json', ...headers }).end(entry.body);
    });
  }

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.base = `https://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Serves `document` (JSON, or a string as it is) at `path`, its hits counted from 0; answers its URL. */
  serve(path: string, document: Record<string, unknown> | string): string {
    this.served[path] = { body: typeof document === 'string' ? document : JSON.stringify(document), hits: 0 };
    return `${this.base}${path}`;
  }

  async stop(): Promise<void> {
    await new Promise((resolve) => this.server.close(resolve));
  }
}

/**
 * Two todo-api replicas on one database, listening on the PUBLIC_BASE_URL they name (`base`, the
 * OAuth issuer): `t` fetches client metadata documents from loopback (the test-only switch, for
 * ClientMetadataDocuments), `strict` runs without it, as production does.
 */
export async function startMetadataFetchingApps(): Promise<{ t: TestApp; strict: TestApp; base: string; close(): Promise<void> }> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const t = await startWithDatabase('todo-api', { PUBLIC_BASE_URL: base, OAUTH_CLIENT_METADATA_LOOPBACK: 'true' }, { port });
  let strict: TestApp;
  try {
    strict = await startApp('todo-api', t.database.url, { PUBLIC_BASE_URL: base });
  } catch (error) {
    await t.close();
    throw error;
  }
  return {
    t,
    strict,
    base,
    close: async () => {
      await strict.close();
      await t.close();
    },
  };
}
