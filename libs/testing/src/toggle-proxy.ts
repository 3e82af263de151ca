import net from 'node:net';

type ProxyMode = 'up' | 'cut' | 'frozen';

interface Pair {
  client: net.Socket;
  upstream?: net.Socket;
  close(): void;
}

/**
 * A TCP proxy in front of the database that a test can cut, freeze and restore:
 * - `cut()` closes every open connection and refuses new ones, as a stopped server would;
 * - `freeze()` stops forwarding in both directions but keeps every connection open and
 *   accepts new ones without answering, as a hung server or a silent network would;
 * - `restore()` forwards again (frozen connections resume with what was held back).
 */
export class ToggleProxy {
  private readonly pairs = new Set<Pair>();
  private server?: net.Server;
  private mode: ProxyMode = 'up';
  port = 0;

  constructor(private readonly targetHost: string, private readonly targetPort: number) {}

  async start(): Promise<void> {
    this.server = net.createServer((client) => {
      if (this.mode === 'cut') {
        client.destroy();
        return;
      }
      const pair: Pair = {
        client,
        close: () => {
          client.destroy();
          pair.upstream?.destroy();
          this.pairs.delete(pair);
        },
      };
      this.pairs.add(pair);
      client.on('error', pair.close).on('close', pair.close);
      if (this.mode === 'frozen') {
        client.pause();
        return;
      }
      this.connectUpstream(pair);
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server!.address() as net.AddressInfo).port;
  }

  private connectUpstream(pair: Pair): void {
    const upstream = net.connect(this.targetPort, this.targetHost);
    pair.upstream = upstream;
    upstream.on('error', pair.close).on('close', pair.close);
    pair.client.pipe(upstream).pipe(pair.client);
  }

  /** The database URL rewritten to go through this proxy. */
  wrap(databaseUrl: string): string {
    const url = new URL(databaseUrl);
    url.hostname = '127.0.0.1';
    url.port = String(this.port);
    return url.toString();
  }

  cut(): void {
    this.mode = 'cut';
    for (const pair of this.pairs) {
      pair.client.destroy();
      pair.upstream?.destroy();
    }
    this.pairs.clear();
  }

  /** Connections stay open but nothing passes, either way; new connections are accepted and left hanging. */
  freeze(): void {
    this.mode = 'frozen';
    for (const { client, upstream } of this.pairs) {
      if (!upstream) continue;
      client.unpipe(upstream);
      upstream.unpipe(client);
      client.pause();
      upstream.pause();
    }
  }

  restore(): void {
    const wasFrozen = this.mode === 'frozen';
    this.mode = 'up';
    if (!wasFrozen) return;
    for (const pair of this.pairs) {
      if (pair.upstream) pair.client.pipe(pair.upstream).pipe(pair.client);
      else this.connectUpstream(pair);
    }
  }

  async stop(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }

  static forUrl(databaseUrl: string): ToggleProxy {
    const url = new URL(databaseUrl);
    return new ToggleProxy(url.hostname, Number(url.port || 5432));
  }
}
