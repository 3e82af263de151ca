import type { Server, ServerResponse } from 'node:http';
import net from 'node:net';
import { Injectable, Logger } from '@nestjs/common';
import { AppMetrics } from '../metrics/app-metrics.js';

/** How often the drain looks whether the in-flight requests are done. */
const DRAIN_POLL_MS = 25;
/** After the server stops accepting: time for connections accepted at the last moment to deliver their request. */
const LAST_ARRIVALS_MS = 100;

export interface DrainReport {
  /** Requests still unfinished when the grace period ended (their connections were closed). */
  cutRequests: number;
  elapsedMs: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The app's side of a graceful shutdown (SIGTERM, see runServices):
 *
 * 1. At once: readiness answers 503 (the orchestrator and the gateway stop sending traffic),
 *    every response from now on carries `Connection: close` (clients open their next request
 *    elsewhere), and services that hold long-lived responses end them (event streams get a
 *    `retry` hint first). Idle keep-alive connections are left open: a gateway that has not yet
 *    seen the readiness change may be sending on one right now, and closing it would reset that
 *    request; it gets an answer with `Connection: close` instead.
 * 2. While requests still arrive or connections are still open, they are served, for at most
 *    half the grace period; then the server stops accepting and closes the idle connections.
 * 3. In-flight requests finish within the rest of SHUTDOWN_GRACE_MS; whatever is still open
 *    then is closed. The caller closes the app afterwards, which ends the database pools last.
 */
@Injectable()
export class GracefulShutdown {
  private readonly logger = new Logger('Shutdown');
  private readonly inFlight = new Set<ServerResponse>();
  private readonly drainHooks: Array<() => void | Promise<void>> = [];
  private server?: Server;
  private draining = false;
  private drained?: Promise<DrainReport>;

  constructor(metrics: AppMetrics) {
    const draining = () => this.draining;
    metrics.gauge({
      name: 'shutdown_draining',
      help: '1 once the replica is draining for shutdown (readiness fails, connections close after their response)',
      collect() {
        this.set(draining() ? 1 : 0);
      },
    });
  }

  get isDraining(): boolean {
    return this.draining;
  }

  /** Called by createHttpApp with the app's server. */
  attach(server: Server): void {
    this.server = server;
  }

  /** A service that holds responses open (event streams) ends them here when the drain starts. */
  onDrain(hook: () => void | Promise<void>): void {
    this.drainHooks.push(hook);
  }

  /** A request has arrived (before any middleware sees it). */
  admit(response: ServerResponse): void {
    this.inFlight.add(response);
    if (this.draining) response.setHeader('Connection', 'close');
  }

  /** Its response is done (finished or aborted). */
  release(response: ServerResponse): void {
    this.inFlight.delete(response);
  }

  /** Runs the drain once; later calls get the same report. */
  drain(graceMs: number): Promise<DrainReport> {
    this.drained ??= this.run(graceMs);
    return this.drained;
  }

  private async run(graceMs: number): Promise<DrainReport> {
    const started = Date.now();
    this.draining = true;
    for (const response of this.inFlight) if (!response.headersSent) response.setHeader('Connection', 'close');
    for (const hook of this.drainHooks) {
      try {
        await hook();
      } catch (error) {
        this.logger.warn({ err: (error as Error)?.message }, 'A drain step failed');
      }
    }
    const server = this.server;
    if (!server) return { cutRequests: 0, elapsedMs: Date.now() - started };

    const acceptUntil = started + graceMs / 2;
    while (Date.now() < acceptUntil && (this.inFlight.size > 0 || (await openConnections(server)) > 0)) await sleep(DRAIN_POLL_MS);

    // Stop accepting. (http.Server#close would also drop idle connections at once, among them any
    // accepted a moment ago whose request has not been read yet: that request would be reset.)
    const closed = new Promise<void>((resolve) => net.Server.prototype.close.call(server, () => resolve()));
    await sleep(LAST_ARRIVALS_MS);
    server.closeIdleConnections();
    const deadline = started + graceMs;
    while (Date.now() < deadline && this.inFlight.size > 0) await sleep(DRAIN_POLL_MS);
    const cutRequests = this.inFlight.size;
    server.closeAllConnections();
    await closed;
    const report = { cutRequests, elapsedMs: Date.now() - started };
    if (cutRequests > 0) this.logger.warn(report, 'Shutdown grace period ended with requests still in flight; their connections were closed');
    return report;
  }
}

function openConnections(server: Server): Promise<number> {
  return new Promise((resolve) => server.getConnections((error, count) => resolve(error ? 0 : count)));
}
