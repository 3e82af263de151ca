import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { pino, type DestinationStream, type Logger } from 'pino';
import type PinoPretty from 'pino-pretty';
import type { AppConfig } from '#libs/config';
import { traceLogFields } from '#libs/tracing';
import { pathBeforeQuery } from '../http/url-path.js';

const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;

/** Provider token of the app's request-logging middleware; its `.logger` is the app's pino logger. */
export const REQUEST_LOGGING = Symbol('REQUEST_LOGGING');

/** A request id from the gateway when it is well-formed, else a fresh one. */
function requestIdFor(request: IncomingMessage, response: ServerResponse): string {
  const incoming = request.headers['x-request-id'];
  const id = typeof incoming === 'string' && REQUEST_ID_PATTERN.test(incoming) ? incoming : randomUUID();
  response.setHeader('X-Request-Id', id);
  return id;
}

/** Headers of every app that carry secrets; never logged. An app adds its own (RequestLoggingOptions.secretHeaders). */
const REDACTED_PATHS = ['req.headers.authorization', 'req.headers.cookie', 'res.headers["set-cookie"]'];

/** Probes and the metrics scrape: asked every few seconds, left out of the access log. */
const UNLOGGED_PATHS = new Set(['/api/v1/status', '/livez', '/readyz', '/metrics']);

/** What an app tells the access log about its routes and headers. */
export interface RequestLoggingOptions {
  /** Path prefixes whose next segment is a credential (e.g. a share link's token): logged as [redacted], in any spelling of the prefix. */
  secretPathPrefixes?: readonly string[];
  /** The app's own request headers that carry secrets (its credentials, a webhook's signature), lower case: never logged. */
  secretHeaders?: readonly string[];
}

/** A path segment as a router could read it: percent-decoded, lower case. */
function normalSegment(segment: string): string {
  try {
    return decodeURIComponent(segment).toLowerCase();
  } catch {
    return segment.toLowerCase();
  }
}

/**
 * Replaces the segment after any secret prefix by `[redacted]`, whatever its spelling: prefixes are
 * compared segment by segment, percent-decoded and case-insensitively, empty segments (`//q/…`)
 * skipped. Routing is case-sensitive, but the log must not rely on it.
 */
function secretSegmentRedactor(prefixes: readonly string[]): ((path: string) => string) | undefined {
  const secretPrefixes = prefixes.map((prefix) => prefix.split('/').filter(Boolean).map(normalSegment)).filter((segments) => segments.length > 0);
  if (secretPrefixes.length === 0) return undefined;
  return (path) => {
    const segments = path.split('/');
    const named = segments.flatMap((segment, index) => (segment === '' ? [] : [index]));
    for (const prefix of secretPrefixes) {
      if (named.length > prefix.length && prefix.every((segment, i) => normalSegment(segments[named[i]]) === segment)) {
        segments[named[prefix.length]] = '[redacted]';
        return segments.join('/');
      }
    }
    return path;
  };
}

/** Strips query strings (they may carry access_token) and secret path segments from logged URLs. */
function safeUrl(url: string | undefined, redact: ((path: string) => string) | undefined): string | undefined {
  const path = url === undefined ? undefined : pathBeforeQuery(url);
  return path !== undefined && redact ? redact(path) : path;
}

/** The app's request-logging middleware; `.logger` is the app's pino logger. */
export interface RequestLogging {
  (request: IncomingMessage, response: ServerResponse, next: () => void): void;
  logger: Logger;
}

/**
 * Standard output for LOG_FORMAT=pretty: one readable line per entry (time, level, service,
 * context, message, then the other fields; an access line as method, path, status, time and request
 * id), written synchronously so it keeps its order with the start block.
 */
export function prettyLines(destination: DestinationStream | number = 1): DestinationStream {
  // Required here, not imported at the top: production logs JSON and need not hold the pretty printer.
  const pinoPretty = createRequire(import.meta.url)('pino-pretty') as typeof PinoPretty;
  return pinoPretty({
    destination,
    sync: true,
    singleLine: true,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname,service,context,req,res,responseTime',
    messageFormat: '{service}{if context} {context}{end}: {msg}{if req} {req.method} {req.url} {res.statusCode} in {responseTime} ms, request {req.id}{end}',
  });
}

/**
 * A service's pino logger: the one line shape of every log line (numeric `level`, epoch `time`,
 * `service`, `msg`), JSON on standard output unless LOG_FORMAT=pretty. The app's logger, the
 * launcher's (start, drain, a failed start) and the logger an app boots with are all made here.
 */
export function createServiceLogger(
  config: Pick<AppConfig, 'logLevel' | 'logFormat'> & Partial<Pick<AppConfig, 'tracing'>>,
  service: string,
  destination?: DestinationStream,
  secretHeaders: readonly string[] = [],
): Logger {
  const redacted = [...REDACTED_PATHS, ...secretHeaders.map((name) => `req.headers[${JSON.stringify(name.toLowerCase())}]`)];
  // Traced: a line written inside a traced request carries its `trace_id` and `span_id`.
  const mixin = config.tracing?.endpoint ? () => traceLogFields() ?? {} : undefined;
  const options = { level: config.logLevel, base: { service }, redact: { paths: redacted, censor: '[redacted]' }, ...(mixin ? { mixin } : {}) };
  const stream = destination ?? (config.logFormat === 'pretty' ? prettyLines() : undefined);
  return stream ? pino(options, stream) : pino(options);
}

/**
 * One JSON access-log line per request (method, path, status, time, request id) and the
 * app's pino logger, owned by the app: two apps in one process keep their own `service`
 * field and destination.
 *
 * Written here rather than with pino-http, which builds a child logger per request (the
 * request serialised and redacted up front, whether or not a line is ever written); this
 * serialises the few fields of the line at the end, only when the line is written. Nothing binds
 * the request to the services' lines implicitly: the access-log line and unexpected errors
 * (AllExceptionsFilter) carry the request id. Tests pass a destination and always get JSON lines.
 */
export function createRequestLogging(config: AppConfig, service: string, destination?: DestinationStream, routes: RequestLoggingOptions = {}): RequestLogging {
  const redactSecrets = secretSegmentRedactor(routes.secretPathPrefixes ?? []);
  const logger = createServiceLogger(config, service, destination, routes.secretHeaders);
  const middleware = ((request: IncomingMessage & { id?: string }, response: ServerResponse, next: () => void) => {
    const id = requestIdFor(request, response);
    request.id = id;
    if (!UNLOGGED_PATHS.has(request.url ?? '')) {
      const started = Date.now();
      // Read now: the line is written when the response closes, outside the request's context.
      const traced = traceLogFields();
      response.once('close', () => {
        // A 503 is a refusal (a dependency outage, a full queue, a drain), logged as an event elsewhere, not an error.
        const failed = response.statusCode >= 500 && response.statusCode !== 503;
        const level = failed ? 'error' : 'info';
        if (!logger.isLevelEnabled(level)) return;
        // The envelope's error.code, left by the one writer of error responses (AllExceptionsFilter).
        const errorCode = (response as ServerResponse & { locals?: { errorCode?: string } }).locals?.errorCode;
        const line = {
          req: { id, method: request.method, url: safeUrl(request.url, redactSecrets), remoteAddress: request.socket?.remoteAddress },
          res: { statusCode: response.statusCode },
          responseTime: Date.now() - started,
          ...(errorCode === undefined ? {} : { errorCode }),
          ...traced,
        };
        const outcome = !response.writableFinished ? 'request aborted' : failed ? 'request failed' : response.statusCode === 503 ? 'request refused' : 'request completed';
        logger[level](line, outcome);
      });
    }
    next();
  }) as RequestLogging;
  middleware.logger = logger;
  return middleware;
}
