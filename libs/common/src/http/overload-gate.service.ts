import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import type { Counter } from 'prom-client';
import { APP_CONFIG, type AppConfig, type OverloadConfig } from '#libs/config';
import { ErrorCode, statusOf } from '../errors/error-code.enum.js';
import { AppMetrics } from '../metrics/app-metrics.js';
import { errorBody } from './all-exceptions.filter.js';
import { pathBeforeQuery, trimTrailingSlashes } from './url-path.js';

/**
 * Routes the gate never refuses, whatever the load: the probes, the status route and the metrics
 * scrape (an overloaded replica must still say so). The OpenAPI document names SERVICE_OVERLOADED
 * on every other route (openapi-finish).
 */
export const OVERLOAD_EXEMPT_PATHS: readonly string[] = ['/livez', '/readyz', '/api/v1/status', '/metrics'];

/** The event loop's delay is averaged over windows this long: the gate reacts (and recovers) within one or two of them. */
const OVERLOAD_WINDOW_MS = 250;

/** `Retry-After` of a refusal: an overloaded replica is expected back within a second or so. */
const OVERLOAD_RETRY_AFTER_SECONDS = 1;

export type OverloadReason = 'in_flight' | 'event_loop_delay';

/** The refusal is the same every time: its body is serialised once. */
const REFUSAL_STATUS = statusOf(ErrorCode.SERVICE_OVERLOADED);
const REFUSAL_BODY = Buffer.from(
  JSON.stringify(
    errorBody(ErrorCode.SERVICE_OVERLOADED, `The service is overloaded; retry in ${OVERLOAD_RETRY_AFTER_SECONDS} s`, { retryAfterSeconds: OVERLOAD_RETRY_AFTER_SECONDS }),
  ),
);
/** Beside the headers the refusal's steps set (request id, security headers, CORS). */
const REFUSAL_HEADERS = {
  'Content-Type': 'application/json; charset=utf-8',
  'Content-Length': String(REFUSAL_BODY.length),
  'Retry-After': String(OVERLOAD_RETRY_AFTER_SECONDS),
};

/**
 * What every answer carries, a refusal too (connect-style middleware the app also runs in Express):
 * the request id and its access-log line, the security headers, CORS.
 */
export type RefusalStep = (request: IncomingMessage, response: ServerResponse, next: () => void) => void;

function runSteps(steps: readonly RefusalStep[], request: IncomingMessage, response: ServerResponse, last: () => void): void {
  let index = 0;
  const next = (): void => {
    const step = steps[index++];
    if (step) step(request, response, next);
    else last();
  };
  next();
}

/** The request's path as Express reads it (before the query), trailing slashes trimmed. */
function gatePathOf(url = '/'): string {
  const raw = pathBeforeQuery(url);
  return raw.length > 1 ? trimTrailingSlashes(raw) : raw;
}

/** The limits the decision compares against (OverloadConfig without the switch). */
export type OverloadLimits = Pick<OverloadConfig, 'maxEventLoopDelayMs' | 'maxInFlight' | 'minInFlight'>;

/**
 * Why a new request is refused, or undefined when it is admitted: the requests already in flight
 * reach `maxInFlight`, or the event loop's mean delay over the last window reaches
 * `maxEventLoopDelayMs` while at least `minInFlight` requests are in flight (a delay with no queue
 * behind it, a single slow task, is not overload: refusing then would only drop work that is cheap to do).
 */
export function overloadReason(inFlight: number, eventLoopDelayMs: number, limits: OverloadLimits): OverloadReason | undefined {
  if (inFlight >= limits.maxInFlight) return 'in_flight';
  if (inFlight >= limits.minInFlight && eventLoopDelayMs >= limits.maxEventLoopDelayMs) return 'event_loop_delay';
  return undefined;
}

/** Where the event loop's delay comes from: `monitorEventLoopDelay` in the app, a stand-in in unit tests. */
export interface EventLoopDelaySource {
  /** Mean delay (ms) of the samples since the last reset; 0 when there is none. */
  meanMs(): number;
  reset(): void;
  stop(): void;
}

/** The event loop's delay from perf_hooks, sampled every 10 ms. */
function perfHooksDelaySource(): EventLoopDelaySource {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  return {
    meanMs: () => (histogram.count > 0 ? histogram.mean / 1e6 : 0),
    reset: () => histogram.reset(),
    stop: () => histogram.disable(),
  };
}

/**
 * The decision and its inputs, without HTTP: the requests in flight (counted by the gate) and the
 * event loop's mean delay over the last completed window (`sample()`, called every
 * OVERLOAD_WINDOW_MS by the gate's timer). A window is read and then forgotten, so once the load is
 * gone the next window's figure is low again: admission recovers within one window.
 */
export class OverloadMonitor {
  private inFlightCount = 0;
  private lastDelayMs = 0;

  constructor(
    private readonly limits: OverloadLimits,
    private readonly delays: EventLoopDelaySource,
  ) {}

  get inFlight(): number {
    return this.inFlightCount;
  }

  /** The mean event-loop delay of the last completed window (ms). */
  get eventLoopDelayMs(): number {
    return this.lastDelayMs;
  }

  /** Closes the current window: its mean delay is what the next decisions use. */
  sample(): void {
    this.lastDelayMs = this.delays.meanMs();
    this.delays.reset();
  }

  /** Why a request arriving now would be refused, if it would be. */
  check(): OverloadReason | undefined {
    return overloadReason(this.inFlightCount, this.lastDelayMs, this.limits);
  }

  enter(): void {
    this.inFlightCount++;
  }

  leave(): void {
    this.inFlightCount--;
  }

  stop(): void {
    this.delays.stop();
  }
}

/**
 * Admission control, on the HTTP server itself, ahead of Express: a refusal must cost far less than
 * the work it sheds. Through Express (its router, then the request id, security headers and CORS
 * middlewares) a refusal cost about 210 µs of CPU, a third of a GET, so at three times capacity the
 * refusals alone filled the event loop; here it costs about 80 µs, half of it the access line
 * (bench/README.md, round 10).
 * While the replica is overloaded (OverloadMonitor) a request is answered at once with 503
 * SERVICE_OVERLOADED and `Retry-After: 1` in the envelope, counted in `overload_rejections_total`,
 * after the steps every answer takes (its request id and access line, the security headers, CORS);
 * no body is read, no guard runs, the database is not asked. OVERLOAD_EXEMPT_PATHS and CORS
 * preflights (OPTIONS, which the CORS middleware answers itself) always pass. An admitted request
 * counts as in flight until its response closes, except a long-lived one (an event stream, the
 * app's `longLivedPaths`), which is judged once, when it opens, and then no longer counts: idle
 * streams are not load.
 */
@Injectable()
export class OverloadGate implements OnModuleDestroy {
  private readonly monitor?: OverloadMonitor;
  private readonly timer?: NodeJS.Timeout;
  private readonly rejections: Counter<'reason'>;

  constructor(@Inject(APP_CONFIG) config: AppConfig, metrics: AppMetrics) {
    this.rejections = metrics.counter({
      name: 'overload_rejections_total',
      help: 'Requests refused with 503 SERVICE_OVERLOADED by admission control, by reason (in_flight, event_loop_delay)',
      labelNames: ['reason'],
    });
    if (!config.overload.enabled) return;
    const monitor = (this.monitor = new OverloadMonitor(config.overload, perfHooksDelaySource()));
    this.timer = setInterval(() => monitor.sample(), OVERLOAD_WINDOW_MS).unref();
    metrics.gauge({
      name: 'overload_in_flight_requests',
      help: 'Requests admitted and not yet answered (event streams count only while they open)',
      collect() {
        this.set(monitor.inFlight);
      },
    });
    metrics.gauge({
      name: 'overload_event_loop_delay_seconds',
      help: `Mean event-loop delay over the last ${OVERLOAD_WINDOW_MS} ms window, as admission control sees it`,
      collect() {
        this.set(monitor.eventLoopDelayMs / 1000);
      },
    });
  }

  /**
   * Puts the gate in front of `handler` (the app's Express instance, one of `server`'s request
   * listeners). `longLivedPaths` are the app's streaming routes (judged at admission only);
   * `refusalSteps` run on a refusal before it is written.
   */
  admitOn(server: Server, handler: RequestListener, options: { longLivedPaths?: readonly string[]; refusalSteps: readonly RefusalStep[] }): void {
    const monitor = this.monitor;
    if (!monitor) return;
    const exempt = new Set(OVERLOAD_EXEMPT_PATHS);
    const longLived = new Set(options.longLivedPaths ?? []);
    const leave = () => monitor.leave();
    // Both would answer every request otherwise.
    if (!server.listeners('request').includes(handler)) throw new Error('OverloadGate.admitOn: the handler is not a request listener of the server');
    server.removeListener('request', handler);
    server.on('request', (request: IncomingMessage, response: ServerResponse) => {
      if (request.method === 'OPTIONS') return handler(request, response);
      const path = gatePathOf(request.url);
      if (exempt.has(path)) return handler(request, response);
      const reason = monitor.check();
      if (reason !== undefined) return this.refuse(request, response, reason, options.refusalSteps);
      if (!longLived.has(path)) {
        monitor.enter();
        response.once('close', leave);
      }
      handler(request, response);
    });
  }

  private refuse(request: IncomingMessage, response: ServerResponse, reason: OverloadReason, steps: readonly RefusalStep[]): void {
    this.rejections.inc({ reason });
    // For the access-log line (request logging), as the exception filter leaves it on Express's response.
    (response as ServerResponse & { locals?: Record<string, unknown> }).locals = { errorCode: ErrorCode.SERVICE_OVERLOADED };
    runSteps(steps, request, response, () => response.writeHead(REFUSAL_STATUS, REFUSAL_HEADERS).end(REFUSAL_BODY));
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
    this.monitor?.stop();
  }
}
