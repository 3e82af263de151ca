import type { Server, ServerResponse } from 'node:http';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { Injectable, Logger } from '@nestjs/common';
import { AppMetrics } from '../metrics/app-metrics.js';
import { runBoundedStep, type StepOutcome } from './bounded-step.js';

/** How often the drain looks whether the in-flight requests are done. */
const DRAIN_POLL_MS = 25;
/** After the server stops accepting: time for connections accepted at the last moment to deliver their request. */
const LAST_ARRIVALS_MS = 100;
/** The end of the grace period kept for the close steps (a quarter of it, at most this): requests in flight are cut before. */
const CLOSE_RESERVE_MAX_MS = 1000;
/** A drain hook (ending the event streams, giving their leases back) waits at most this long for the database. */
const DRAIN_HOOK_MAX_MS = 1000;
/** One close step (a LISTEN connection, a pool) waits at most this long, and never past the grace period... */
const CLOSE_STEP_MAX_MS = 2000;
/** ...except for this much, so a step that comes after a grace period used up still gets a chance to close cleanly. */
const CLOSE_STEP_MIN_MS = 50;
/** A step inside an app's close (closeStep) ends this much before the grace period, when the whole close is abandoned. */
const INNER_STEP_MARGIN_MS = 150;

/** The part of SHUTDOWN_GRACE_MS kept for closing connections and pools after the requests in flight. */
export function closeReserveMs(graceMs: number): number {
  return Math.min(CLOSE_RESERVE_MAX_MS, Math.floor(graceMs / 4));
}

/** The deadline of a close step starting now, in a shutdown whose close steps must end by `closeBy`. */
export function closeStepDeadline(closeBy: number, now = Date.now()): number {
  return Math.max(now + CLOSE_STEP_MIN_MS, Math.min(closeBy, now + CLOSE_STEP_MAX_MS));
}

export interface DrainReport {
  /** Requests still unfinished when the grace period ended (their connections were closed). */
  cutRequests: number;
  elapsedMs: number;
}

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
 * 3. In-flight requests finish within the rest of SHUTDOWN_GRACE_MS less the close reserve
 *    (closeReserveMs); whatever is still open then is closed. The caller closes the app
 *    afterwards, which ends the database pools last.
 *
 * Every step is bounded, whatever the dependencies do: a drain hook waits at most
 * DRAIN_HOOK_MAX_MS, and each close step (closeStep: the LISTEN connection, the pools) has a
 * deadline inside the grace period, after which it is abandoned with one warning and its socket
 * destroyed. A frozen database cannot hold the process past SHUTDOWN_GRACE_MS.
 */
@Injectable()
export class GracefulShutdown {
  private readonly logger = new Logger('Shutdown');
  private readonly inFlight = new Set<ServerResponse>();
  private readonly drainHooks: Array<{ step: string; hook: () => void | Promise<void> }> = [];
  private server?: Server;
  private draining = false;
  private drained?: Promise<DrainReport>;
  /** Epoch ms by which every close step must be done: the end of the grace period, once a drain started. */
  private closeBy?: number;

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
  onDrain(hook: () => void | Promise<void>, step = 'a drain hook'): void {
    this.drainHooks.push({ step, hook });
  }

  /**
   * One step of closing the app (a connection, a pool), bounded: it gets until the end of the
   * grace period (at most CLOSE_STEP_MAX_MS; when no drain ran, CLOSE_STEP_MAX_MS); past that it
   * is abandoned with one warning and `onAbandon` destroys what it waited on.
   */
  closeStep(step: string, run: () => unknown, onAbandon?: () => void): Promise<StepOutcome> {
    // A step inside the app's close ends a moment before the close itself is abandoned, so it still logs and destroys its socket.
    const closeBy = this.closeBy === undefined ? Date.now() + CLOSE_STEP_MAX_MS : this.closeBy - INNER_STEP_MARGIN_MS;
    return runBoundedStep(run, { step, deadline: closeStepDeadline(closeBy), onAbandon, warn: (fields, msg) => this.logger.warn(fields, msg) });
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
    this.closeBy = started + graceMs;
    for (const response of this.inFlight) if (!response.headersSent) response.setHeader('Connection', 'close');
    for (const { step, hook } of this.drainHooks) {
      const deadline = Math.min(started + graceMs / 2, Date.now() + DRAIN_HOOK_MAX_MS);
      await runBoundedStep(
        async () => {
          try {
            await hook();
          } catch (error) {
            this.logger.warn({ err: (error as Error)?.message, step }, 'A drain step failed');
          }
        },
        { step, deadline, warn: (fields, msg) => this.logger.warn(fields, msg) },
      );
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
    const deadline = started + graceMs - closeReserveMs(graceMs);
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
