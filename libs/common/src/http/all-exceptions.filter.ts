import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { AppException } from '../errors/app.exception.js';
import { ERROR_CATALOGUE, ErrorCode, isRetryableUnavailability, publicCodeOf } from '../errors/error-code.enum.js';
import { classifyDatabaseError, LOCK_TIMEOUT_RETRY_AFTER_SECONDS } from '../errors/postgres-error.js';
import { DATABASE_DEPENDENCY } from '../health/dependency-checks.service.js';
import { DependencyOutages } from '../health/dependency-outages.service.js';
import { allowedMethodsFor } from './route-methods.js';

export interface ErrorBody {
  success: false;
  error: { code: string; message: string; details?: unknown };
}

export interface ResolvedError {
  code: ErrorCode;
  message: string;
  details?: unknown;
  headers?: Record<string, string>;
  /** Unexpected errors are logged with their stack; expected ones are not. */
  unexpected?: boolean;
  /** The dependency that did not answer, when that is why the request is refused (503): an outage, not an error. */
  dependency?: string;
  /** The database cancelled a statement that waited too long (a lock wait): 503, counted, not an outage. */
  lockTimeout?: boolean;
}

/** `Retry-After` of a 503 that names none: long enough for a restarted database or a replica swap. */
export const DEFAULT_RETRY_AFTER_SECONDS = '5';

const STATUS_TO_CODE: Record<number, ErrorCode> = {
  400: ErrorCode.VALIDATION_ERROR,
  401: ErrorCode.AUTH_REQUIRED,
  403: ErrorCode.FORBIDDEN,
  404: ErrorCode.NOT_FOUND,
  405: ErrorCode.METHOD_NOT_ALLOWED,
  406: ErrorCode.NOT_ACCEPTABLE,
  409: ErrorCode.CONFLICT,
  413: ErrorCode.PAYLOAD_TOO_LARGE,
  415: ErrorCode.UNSUPPORTED_MEDIA_TYPE,
  429: ErrorCode.RATE_LIMITED,
  503: ErrorCode.SERVICE_UNAVAILABLE,
};

/** Messages for framework errors: Nest's and Express's own texts are never sent. */
const GENERIC_MESSAGES: Partial<Record<ErrorCode, string>> = {
  [ErrorCode.VALIDATION_ERROR]: 'The request is invalid',
  [ErrorCode.AUTH_REQUIRED]: 'Authentication is required',
  [ErrorCode.FORBIDDEN]: 'Access to this resource is forbidden',
  [ErrorCode.NOT_FOUND]: 'No such resource',
  [ErrorCode.METHOD_NOT_ALLOWED]: 'This method is not allowed on this resource',
  [ErrorCode.NOT_ACCEPTABLE]: 'No acceptable representation',
  [ErrorCode.CONFLICT]: 'The request conflicts with the current state',
  [ErrorCode.PAYLOAD_TOO_LARGE]: 'The request body is larger than 1 MiB',
  [ErrorCode.UNSUPPORTED_MEDIA_TYPE]: 'Unsupported content type',
  [ErrorCode.RATE_LIMITED]: 'Too many requests',
  [ErrorCode.SERVICE_UNAVAILABLE]: 'The service is temporarily unavailable',
  [ErrorCode.INTERNAL_ERROR]: 'An unexpected error occurred',
};

/** Errors raised by Express's body parser before any handler runs. */
function resolveBodyParserError(error: any): ResolvedError | undefined {
  switch (error?.type) {
    case 'entity.too.large':
      return { code: ErrorCode.PAYLOAD_TOO_LARGE, message: GENERIC_MESSAGES.PAYLOAD_TOO_LARGE! };
    case 'entity.parse.failed':
      return { code: ErrorCode.VALIDATION_ERROR, message: 'The request body is not valid JSON' };
    case 'entity.too.deep':
      return { code: ErrorCode.VALIDATION_ERROR, message: error.message };
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return { code: ErrorCode.UNSUPPORTED_MEDIA_TYPE, message: 'Unsupported request body encoding' };
    case 'request.aborted':
    case 'request.size.invalid':
    case 'stream.encoding.set':
      return { code: ErrorCode.VALIDATION_ERROR, message: 'The request body could not be read' };
    default:
      return undefined;
  }
}

/** The dependency whose unavailability `error` reports, if that is what it reports. */
export function unavailableDependencyOf(error: unknown): string | undefined {
  const database = classifyDatabaseError(error);
  return database?.code === ErrorCode.SERVICE_UNAVAILABLE && !database.lockTimeout ? DATABASE_DEPENDENCY : undefined;
}

/** What to answer for an exception; every retryable 503 carries `Retry-After`. */
export function resolveError(exception: unknown, request: Request): ResolvedError {
  const resolved = resolveWithoutRetryAfter(exception, request);
  if (!isRetryableUnavailability(resolved.code) || resolved.headers?.['Retry-After']) return resolved;
  return { ...resolved, headers: { ...resolved.headers, 'Retry-After': DEFAULT_RETRY_AFTER_SECONDS } };
}

function resolveWithoutRetryAfter(exception: unknown, request: Request): ResolvedError {
  if (exception instanceof AppException) {
    return { code: exception.code, message: exception.message, details: exception.details, headers: exception.headers };
  }
  // Nest wraps body-parser errors in an HttpException whose cause is the original.
  const bodyError = resolveBodyParserError(exception) ?? resolveBodyParserError((exception as { cause?: unknown })?.cause);
  if (bodyError) return bodyError;

  if (exception instanceof HttpException) {
    const status = exception.getStatus();
    if (status === 404) {
      const allowed = allowedMethodsFor(request);
      if (allowed.length > 0) {
        return {
          code: ErrorCode.METHOD_NOT_ALLOWED,
          message: `Method ${request.method} is not allowed here; allowed: ${allowed.join(', ')}`,
          headers: { Allow: allowed.join(', ') },
        };
      }
    }
    const code = STATUS_TO_CODE[status] ?? (status >= 500 ? ErrorCode.INTERNAL_ERROR : ErrorCode.VALIDATION_ERROR);
    return { code, message: GENERIC_MESSAGES[code] ?? 'The request failed', unexpected: status >= 500 };
  }

  const database = classifyDatabaseError(exception);
  if (database?.lockTimeout) {
    return { code: database.code, message: database.message, lockTimeout: true, headers: { 'Retry-After': LOCK_TIMEOUT_RETRY_AFTER_SECONDS } };
  }
  if (database) return database.code === ErrorCode.SERVICE_UNAVAILABLE ? { ...database, dependency: DATABASE_DEPENDENCY } : database;

  return { code: ErrorCode.INTERNAL_ERROR, message: GENERIC_MESSAGES.INTERNAL_ERROR!, unexpected: true };
}

export function errorBody(code: ErrorCode, message: string, details?: unknown): ErrorBody {
  const error: ErrorBody['error'] = { code: publicCodeOf(code), message };
  if (details !== undefined) error.details = details;
  return { success: false, error };
}

interface ErrorResponseContext {
  request: Request;
  response: Response;
  outages: DependencyOutages;
  logger: Logger;
  status: number;
}

/**
 * What every error filter (this one, the MCP endpoints') does before writing its body: a
 * dependency outage is reported to DependencyOutages (one quiet log line per outage, not one
 * per request); a lock wait is counted there as a lock timeout, not an outage; any other unexpected failure is logged with its stack; the resolved error's
 * headers are set. Returns false when the response has already started (a stream): it is
 * ended, since no error body can follow any more.
 */
export function startErrorResponse(resolved: ResolvedError, exception: unknown, context: ErrorResponseContext): boolean {
  const { request, response } = context;
  if (resolved.dependency) {
    context.outages.refused(resolved.dependency, exception);
  } else if (resolved.lockTimeout) {
    context.outages.lockTimedOut(DATABASE_DEPENDENCY);
  } else if (resolved.unexpected) {
    const err = exception as Error;
    context.logger.error(
      { err: { type: err?.name, message: err?.message, stack: err?.stack }, requestId: (request as { id?: unknown }).id, status: context.status },
      'Request failed unexpectedly',
    );
  }
  if (response.headersSent) {
    response.end();
    return false;
  }
  for (const [name, value] of Object.entries(resolved.headers ?? {})) response.setHeader(name, value);
  return true;
}

/**
 * The one place that writes error responses, for every error of every route:
 * ours, Nest's, Express's body parser's and the database driver's.
 */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');

  constructor(private readonly outages: DependencyOutages) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    if (host.getType() !== 'http') throw exception;
    const http = host.switchToHttp();
    const request = http.getRequest<Request>();
    const response = http.getResponse<Response>();
    const resolved = resolveError(exception, request);
    const status = ERROR_CATALOGUE[resolved.code].status;

    if (!startErrorResponse(resolved, exception, { request, response, outages: this.outages, logger: this.logger, status })) return;
    // For the access-log line (request logging): the code a client switches on.
    response.locals.errorCode = resolved.code;
    response.status(status).json(errorBody(resolved.code, resolved.message, resolved.details));
  }
}
