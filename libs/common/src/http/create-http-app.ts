import type { DynamicModule } from '@nestjs/common';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { NestFactory } from '@nestjs/core';
import { ExpressAdapter, type NestExpressApplication } from '@nestjs/platform-express';
import cors, { type CorsOptions } from 'cors';
import express, { type Request, type Response } from 'express';
import helmet from 'helmet';
import { DataSource } from 'typeorm';
import type { AppConfig } from '#libs/config';
import { runMigrations, waitForMigrations } from '#libs/database';
import { AppTracing } from '#libs/tracing';
import { assertEveryRouteHasScheme, listRoutes, rawResponsePaths } from '../auth/route-table.js';
import { successBody } from './envelope.js';
import { GracefulShutdown } from '../lifecycle/graceful-shutdown.service.js';
import { NestPinoLogger } from '../logging/nest-pino-logger.js';
import { createServiceLogger, REQUEST_LOGGING, type RequestLogging } from '../logging/request-logging.js';
import { SERVICE_SCOPED_LOGGER, ServiceLogScope } from '../logging/service-log-scope.js';
import { AppMetrics } from '../metrics/app-metrics.js';
import { checkJsonBody, jsonBodyParser } from './json-body.js';
import { buildOpenApiDocument, OpenApiInfo, serveOpenApi } from '../openapi/openapi.js';
import { OverloadGate } from './overload-gate.service.js';
import { observeRequests } from './request-observer.js';
import { ServiceIndexModule, type ServiceIndexOptions } from './service-index.module.js';
import { pathBeforeQuery } from './url-path.js';

export interface HttpAppOptions {
  openApi: Omit<OpenApiInfo, 'serverUrl'>;
  publicBaseUrl: string;
  /** The app's name, pages and unconfigured features: `GET /` and the start block. */
  index: Pick<ServiceIndexOptions, 'service' | 'pages' | 'unsetFeatures'>;
  /** Paths whose raw body is kept (signature checks need the exact bytes). */
  rawBodyPaths?: readonly string[];
  /** Public routes any web page may call (an embeddable widget): `Access-Control-Allow-Origin: *` whatever CORS_ORIGINS says. */
  openCorsPaths?: readonly string[];
  /** Routes that hold their response open (event streams): admission control judges them once, when they open, and does not count them in flight. */
  longLivedPaths?: readonly string[];
}

/**
 * Express, with the HTTP server listening inside the app's log scope (every request it accepts
 * logs as this app), and the one writer of the success envelope.
 */
class AppExpressAdapter extends ExpressAdapter {
  /** Paths of the routes marked @RawResponse; known once the routes are (enveloped until then). */
  private rawPaths: ReadonlySet<string> = new Set();

  constructor(private readonly logScope: ServiceLogScope) {
    // Set before Nest's adapter creates the router (its constructor adds a middleware): a route
    // answers only its exact spelling, so `/Q/{token}` is a 404, not the share page under a path
    // the access log's redaction was not written for.
    super(express().set('case sensitive routing', true));
  }

  override listen(port: string | number, ...rest: unknown[]): ReturnType<ExpressAdapter['listen']> {
    const listen = super.listen.bind(this) as (...args: unknown[]) => ReturnType<ExpressAdapter['listen']>;
    return this.logScope.run(() => listen(port, ...rest));
  }

  writeRawBodiesOn(paths: ReadonlySet<string>): void {
    this.rawPaths = paths;
  }

  /**
   * Every handler's result passes here: written as `{success: true, data}` unless its route is
   * @RawResponse. Here rather than in a global interceptor because any interceptor makes Nest run
   * every request through rxjs (defer, mergeAll, lastValueFrom, an AsyncResource per call): about a
   * tenth of a GET's CPU (bench/README.md, round 7).
   */
  override reply(response: Response, body: unknown, statusCode?: number): unknown {
    const route = (response.req as Request | undefined)?.route as { path?: unknown } | undefined;
    const raw = typeof route?.path === 'string' && this.rawPaths.has(route.path);
    return super.reply(response, raw ? body : successBody(body), statusCode);
  }
}

/** The request's path: Express's `path` once its router has seen the request, else the URL before its query. */
function pathOf(request: IncomingMessage): string {
  return (request as Partial<Request>).path ?? pathBeforeQuery(request.url ?? '/');
}

/** Response headers a browser on another origin may read (Access-Control-Expose-Headers). */
const EXPOSED_HEADERS = ['Retry-After', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'X-Request-Id', 'Idempotent-Replayed'];

/**
 * helmet's headers (CSP and the cross-origin policies are left to the pages that need them) do
 * not depend on the request: they are worked out once and set in one step, instead of
 * running helmet's eleven middlewares on every request.
 */
function securityHeaders(): (request: IncomingMessage, response: ServerResponse, next: () => void) => void {
  const headers: Array<[string, string]> = [];
  const recorder = { setHeader: (name: string, value: string) => headers.push([name, String(value)]), removeHeader: () => undefined };
  helmet({ contentSecurityPolicy: false, crossOriginEmbedderPolicy: false, crossOriginResourcePolicy: false })(
    {} as IncomingMessage,
    recorder as unknown as ServerResponse,
    () => undefined,
  );
  if (headers.length === 0) throw new Error('helmet set no headers: its middleware is no longer synchronous');
  return (_request, response, next) => {
    for (const [name, value] of headers) response.setHeader(name, value);
    next();
  };
}

/** One boot logger per service and setting (tests build many apps: each its own would open standard output again). */
const bootLoggers = new Map<string, ReturnType<typeof createServiceLogger>>();
function bootLogger(config: AppConfig, service: string): ReturnType<typeof createServiceLogger> {
  const key = `${service}|${config.logLevel}|${config.logFormat}`;
  let logger = bootLoggers.get(key);
  if (!logger) bootLoggers.set(key, (logger = createServiceLogger(config, service)));
  return logger;
}

/**
 * Builds an app with everything both services share around their root module, runs
 * pending migrations (unless MIGRATE_AT_START=false), and initialises it (not yet listening).
 */
export function createHttpApp(rootModule: DynamicModule, config: AppConfig, options: HttpAppOptions): Promise<NestExpressApplication> {
  const logScope = new ServiceLogScope();
  return logScope.run(() => buildHttpApp(rootModule, config, options, logScope));
}

async function buildHttpApp(rootModule: DynamicModule, config: AppConfig, options: HttpAppOptions, logScope: ServiceLogScope): Promise<NestExpressApplication> {
  const adapter = new AppExpressAdapter(logScope);
  const index = ServiceIndexModule.forRoot({ ...options.index, title: options.openApi.title, publicBaseUrl: options.publicBaseUrl });
  // Until the app's own logger exists, Nest's lines (a database retry, a failed start) go to one of
  // the same shape: never buffered and flushed to Nest's coloured console logger.
  logScope.logger = new NestPinoLogger(bootLogger(config, options.index.service));
  const app = await NestFactory.create<NestExpressApplication>(
    { ...rootModule, imports: [...(rootModule.imports ?? []), index] },
    adapter,
    { logger: SERVICE_SCOPED_LOGGER, bufferLogs: false, bodyParser: false, abortOnError: false },
  );
  const requestLogging = app.get<RequestLogging>(REQUEST_LOGGING);
  logScope.logger = new NestPinoLogger(requestLogging.logger);
  // Nest's logger is process-wide: the scoped one sends each line to the app it comes from.
  app.useLogger(SERVICE_SCOPED_LOGGER);
  // On the server itself, ahead of Express: request metrics and the in-flight count of the drain.
  observeRequests(app.getHttpServer() as Server, app.get(AppMetrics), app.get(GracefulShutdown));
  // With OTEL_EXPORTER_OTLP_ENDPOINT set: the request runs in its server span (the access line carries its ids).
  const tracing = app.get(AppTracing).middleware();
  if (tracing) app.use(tracing);
  // First (after the span), so every request (a refused body too) gets its id and its access-log line.
  app.use(requestLogging);
  app.set('trust proxy', config.trustProxy);
  app.disable('x-powered-by');
  // Responses are per-credential JSON that clients re-fetch; hashing every body for an ETag cost more than it saved.
  app.set('etag', false);
  const security = securityHeaders();
  app.use(security);
  const corsOptions: CorsOptions = {
    origin: config.corsOrigins === '*' ? true : config.corsOrigins,
    exposedHeaders: EXPOSED_HEADERS,
    maxAge: 600,
  };
  // An app's embeddable routes (openCorsPaths) run on any site: open to every origin.
  const openCorsPaths = options.openCorsPaths ?? [];
  const rawBodyPaths = options.rawBodyPaths ?? [];
  const keepsRawBody = (request: Request) => rawBodyPaths.includes(request.path ?? request.url);
  // What Nest's enableCors installs, kept as a value: admission control answers refusals with the same headers.
  const corsHeaders = cors((request: IncomingMessage, callback: (error: Error | null, options: CorsOptions) => void) =>
    callback(null, openCorsPaths.includes(pathOf(request)) ? { ...corsOptions, origin: '*' } : corsOptions),
  );
  app.use(corsHeaders);
  // Admission control, on the server ahead of Express: an overloaded replica refuses before the router, the body,
  // any guard or the database; a refusal still gets its request id and access line, the security headers and CORS.
  app.get(OverloadGate).admitOn(app.getHttpServer() as Server, app.getHttpAdapter().getInstance(), {
    longLivedPaths: options.longLivedPaths,
    refusalSteps: [requestLogging, security, corsHeaders],
  });
  // Size (also after inflating), depth and prototype keys are refused here, before any validation.
  app.use(jsonBodyParser(keepsRawBody));
  app.use(checkJsonBody(keepsRawBody));

  if (config.migrateAtStart) await runMigrations(app.get(DataSource));
  else {
    // MIGRATE_AT_START=false: a separate step (the migration Job, `node dist/apps/migrate.js`) applies them.
    // The app's start hooks read the schema, so it waits for them before it initialises (and listens).
    await waitForMigrations(app.get(DataSource), (pending, error) =>
      requestLogging.logger.warn(
        { pending, err: error },
        'Waiting for the migrations of this build (MIGRATE_AT_START=false): run `node dist/apps/migrate.js` (the migration Job)',
      ),
    );
  }

  const document = buildOpenApiDocument(app, { ...options.openApi, serverUrl: options.publicBaseUrl });
  serveOpenApi(app, document);
  await app.init();
  const routes = listRoutes(app);
  assertEveryRouteHasScheme(routes);
  adapter.writeRawBodiesOn(rawResponsePaths(routes));
  return app;
}
