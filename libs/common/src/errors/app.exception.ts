import { ErrorCode, statusOf } from './error-code.enum.js';

/**
 * The one exception services throw for an expected failure. The global filter turns it
 * into `{success: false, error: {code, message, details?}}` with the catalogue's status.
 */
export class AppException extends Error {
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: unknown,
    /** Extra response headers, e.g. Retry-After on RATE_LIMITED. */
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'AppException';
    this.status = statusOf(code);
  }
}
