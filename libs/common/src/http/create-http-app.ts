import type { DynamicModule } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import express, { type NextFunction, type Request, type Response } from 'express';
import helmet from 'helmet';
import { DataSource } from 'typeorm';
import type { AppConfig } from '#libs/config';
import { runMigrations } from '#libs/database';
import { assertEveryRouteHasScheme } from '../auth/route-table.js';
import { AppException } from '../errors/app.exception.js';
import { ErrorCode } from '../errors/error-code.enum.js';
import { NestPinoLogger } from '../logging/nest-pino-logger.js';
import { REQUEST_LOGGING, type RequestLogging } from '../logging/request-logging.js';
import { buildOpenApiDocument, OpenApiInfo, serveOpenApi } from '../openapi/openapi.js';

export const BODY_LIMIT = '1mb';

/** Paths whose raw body is kept (signature checks need the exact bytes). */
const RAW_BODY_PATHS = ['/api/v1/billing/webhook'];

export interface HttpAppOptions {
  openApi: Omit<OpenApiInfo, 'serverUrl'>;
  publicBaseUrl: string;
}

/** Public routes any web page may call (the feedback widget): `Access-Control-Allow-Origin: *` whatever CORS_ORIGINS says. */
export const OPEN_CORS_PATHS = ['/widget.js', '/api/v1/widget/feedback'];

const RATE_LIMIT_HEADERS = ['Retry-After', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'X-Request-Id'];

/**
 * helmet's headers (CSP and the cross-origin policies are left to the pages that need them) do
 * not depend on the request: they are worked out once and set in one step, instead of
 * running helmet's eleven middlewares on every request.
 */
function securityHeaders(): (request: Request, response: Response, next: NextFunction) => void {
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

/** A JSON body must be an object: arrays and primitives are refused before validation. */
function requireObjectBody(request: Request, _response: Response, next: NextFunction): void {
  const body = request.body as unknown;
  if (request.is('application/json') && (Array.isArray(body) || body === null || typeof body !== 'object')) {
    next(new AppException(ErrorCode.VALIDATION_ERROR, 'The request body must be a JSON object'));
    return;
  }
  next();
}

/**
 * Builds an app with everything both services share around their root module, runs
 * pending migrations, and initialises it (not yet listening).
 */
export async function createHttpApp(rootModule: DynamicModule, config: AppConfig, options: HttpAppOptions): Promise<NestExpressApplication> {
  const app = await NestFactory.create<NestExpressApplication>(rootModule, { bufferLogs: true, bodyParser: false, abortOnError: false });
  const requestLogging = app.get<RequestLogging>(REQUEST_LOGGING);
  app.useLogger(new NestPinoLogger(requestLogging.logger));
  // First, so every request (a refused body too) gets its id and its access-log line.
  app.use(requestLogging);
  app.set('trust proxy', config.trustProxy);
  app.disable('x-powered-by');
  // Responses are per-credential JSON that clients re-fetch; hashing every body for an ETag cost more than it saved.
  app.set('etag', false);
  app.use(securityHeaders());
  const corsOptions = {
    origin: config.corsOrigins === '*' ? true : config.corsOrigins,
    exposedHeaders: RATE_LIMIT_HEADERS,
    maxAge: 600,
  };
  // The embeddable feedback widget runs on any site: its routes are open to every origin.
  app.enableCors((request: Request, callback: (error: Error | null, options: typeof corsOptions | (Omit<typeof corsOptions, 'origin'> & { origin: string })) => void) =>
    callback(null, OPEN_CORS_PATHS.includes(request.path) ? { ...corsOptions, origin: '*' } : corsOptions),
  );
  app.use(
    express.json({
      limit: BODY_LIMIT,
      type: ['application/json', 'application/*+json'],
      verify: (request: Request, _response, buffer) => {
        if (RAW_BODY_PATHS.includes(request.path ?? request.url)) (request as Request & { rawBody?: Buffer }).rawBody = buffer;
      },
    }),
  );
  app.use(requireObjectBody);

  await runMigrations(app.get(DataSource));

  const document = buildOpenApiDocument(app, { ...options.openApi, serverUrl: options.publicBaseUrl });
  serveOpenApi(app, document);
  await app.init();
  assertEveryRouteHasScheme(app);
  return app;
}
