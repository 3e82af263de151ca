import { spawn, type ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { freePort } from './free-port.js';

/** Debian's redis-server (`.ci/run` installs it); REDIS_SERVER_BIN overrides. */
export const REDIS_SERVER_BIN = process.env.REDIS_SERVER_BIN ?? '/usr/bin/redis-server';

/**
 * A private redis-server on a free loopback port, nothing persisted, for a test that stops
 * and starts it (an outage). `kill()` ends it at once, as a crash would; `start()` again
 * brings it back on the same port (empty).
 */
export class RedisTestServer {
  private process?: ChildProcess;

  private constructor(readonly port: number) {}

  static async start(): Promise<RedisTestServer> {
    const server = new RedisTestServer(await freePort());
    await server.start();
    return server;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const child = spawn(REDIS_SERVER_BIN, ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
      stdio: 'ignore',
    });
    this.process = child;
    const exited = new Promise<never>((_, reject) => child.once('exit', (code) => reject(new Error(`redis-server exited (${code})`))));
    exited.catch(() => undefined);
    const deadline = Date.now() + 10_000;
    for (;;) {
      const probe = new Redis(this.url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
      probe.on('error', () => undefined);
      try {
        await Promise.race([probe.connect().then(() => probe.ping()), exited]);
        return;
      } catch (error) {
        if (Date.now() > deadline || child.exitCode !== null) throw error;
        await sleep(50);
      } finally {
        probe.disconnect();
      }
    }
  }

  /** SIGSTOP: a stall, not a crash. Connections stay open and the kernel still accepts new ones; nothing answers. */
  freeze(): void {
    this.process?.kill('SIGSTOP');
  }

  /** SIGCONT: the stalled server answers again, on the connections it had. */
  thaw(): void {
    this.process?.kill('SIGCONT');
  }

  /** SIGKILL: connections drop at once, nothing is saved. */
  async kill(): Promise<void> {
    const child = this.process;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }
}
