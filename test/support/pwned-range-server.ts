import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One range request as the server received it. */
export interface RangeRequest {
  path: string;
  headers: IncomingMessage['headers'];
}

/**
 * A Pwned Passwords range API on 127.0.0.1 (`GET /range/<5 hex>` answering `SUFFIX:COUNT` lines), for todo-api's
 * breached-password check: it knows the passwords a test declares breached, pads every answer with random
 * suffixes, and can be made to hang (a slow service) or fail.
 */
export class PwnedRangeServer {
  readonly requests: RangeRequest[] = [];
  /** `hang`: never answers; `error`: 503. */
  mode: 'normal' | 'hang' | 'error' = 'normal';
  private readonly breached = new Map<string, number>();
  private readonly hanging = new Set<ServerResponse>();
  private server?: Server;

  get url(): string {
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
  }

  /** Declares a password breached `count` times. */
  addBreached(password: string, count = 42): void {
    this.breached.set(createHash('sha1').update(password, 'utf8').digest('hex').toUpperCase(), count);
  }

  async start(): Promise<void> {
    this.server = createServer((request, response) => this.answer(request, response));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
  }

  async stop(): Promise<void> {
    for (const response of this.hanging) response.destroy();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private answer(request: IncomingMessage, response: ServerResponse): void {
    this.requests.push({ path: request.url ?? '', headers: request.headers });
    if (this.mode === 'hang') {
      this.hanging.add(response);
      return;
    }
    const match = /^\/range\/([0-9A-F]{5})$/.exec(request.url ?? '');
    if (this.mode === 'error' || !match) {
      response.writeHead(this.mode === 'error' ? 503 : 400).end();
      return;
    }
    const lines = [...this.breached].filter(([hash]) => hash.startsWith(match[1])).map(([hash, count]) => `${hash.slice(5)}:${count}`);
    if (request.headers['add-padding'] === 'true') {
      for (let i = 0; i < 20; i++) lines.push(`${randomBytes(18).toString('hex').slice(0, 35).toUpperCase()}:0`);
    }
    response.writeHead(200, { 'Content-Type': 'text/plain' }).end(lines.join('\r\n'));
  }
}
