import { DATABASE_KNOWN_DOWN } from '#libs/database';
import { ErrorCode } from './error-code.enum.js';

/** What a database error is answered with. */
export interface DatabaseErrorClass {
  code: ErrorCode;
  message: string;
  /**
   * The server cancelled the statement after it waited too long (statement_timeout 57014,
   * lock_timeout 55P03), almost always for a row another transaction holds: PostgreSQL is
   * answering, so this is its own outcome (503, counted as a lock timeout), not an outage.
   */
  lockTimeout?: true;
}

/** Retry-After of a lock or statement timeout: the holder of the lock is a request, not a restart. */
export const LOCK_TIMEOUT_RETRY_AFTER_SECONDS = '2';

const LOCK_TIMEOUT: DatabaseErrorClass = {
  code: ErrorCode.SERVICE_UNAVAILABLE,
  message: 'The request waited too long for a record a concurrent request is changing; retry it',
  lockTimeout: true,
};

/** SQLSTATE classes we answer with a 4xx or 503 instead of a 500. */
const SQLSTATE_TO_CODE: Record<string, DatabaseErrorClass> = {
  '23505': { code: ErrorCode.CONFLICT, message: 'A record with these values already exists' },
  '23503': { code: ErrorCode.CONFLICT, message: 'The record is referenced by or refers to a missing record' },
  '40001': { code: ErrorCode.CONFLICT, message: 'The request conflicted with a concurrent change; retry it' },
  '40P01': { code: ErrorCode.CONFLICT, message: 'The request conflicted with a concurrent change; retry it' },
  '22P02': { code: ErrorCode.VALIDATION_ERROR, message: 'A value has an invalid format' },
  '22003': { code: ErrorCode.VALIDATION_ERROR, message: 'A numeric value is out of range' },
  '22001': { code: ErrorCode.VALIDATION_ERROR, message: 'A value is too long' },
  '22007': { code: ErrorCode.VALIDATION_ERROR, message: 'A date or time value is invalid' },
  '22008': { code: ErrorCode.VALIDATION_ERROR, message: 'A date or time value is out of range' },
  '22021': { code: ErrorCode.VALIDATION_ERROR, message: 'A value contains bytes that are not valid text' },
  '23502': { code: ErrorCode.VALIDATION_ERROR, message: 'A required value is missing' },
  '23514': { code: ErrorCode.VALIDATION_ERROR, message: 'A value breaks a rule of the record' },
  '57014': LOCK_TIMEOUT,
  '55P03': LOCK_TIMEOUT,
  '57P01': { code: ErrorCode.SERVICE_UNAVAILABLE, message: 'The database is unavailable' },
  '57P02': { code: ErrorCode.SERVICE_UNAVAILABLE, message: 'The database is unavailable' },
  '57P03': { code: ErrorCode.SERVICE_UNAVAILABLE, message: 'The database is unavailable' },
  '53300': { code: ErrorCode.SERVICE_UNAVAILABLE, message: 'The database is busy' },
};

const CONNECTION_ERROR_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH', 'ENOENT']);
const CONNECTION_ERROR_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Connection ended unexpectedly',
  'Client has encountered a connection error',
  'the database system is',
  'Query read timeout',
  // The circuit breaker refuses pool borrows while the database is known down (DatabaseProbe.failFastWhile).
  DATABASE_KNOWN_DOWN,
  'Cannot use a pool after calling end',
  // TypeORM releases a transaction's connection when the server drops it; the transaction's next query
  // (or its COMMIT) then fails with one of these (QueryRunner[Provider]AlreadyReleasedError).
  'Database connection provided by a query runner was already released',
  'Query runner already released',
];

function sqlStateOf(error: any): string | undefined {
  const code = error?.driverError?.code ?? error?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

/** Maps a database or driver error to a public error, or undefined when it is not one. */
export function classifyDatabaseError(error: unknown): DatabaseErrorClass | undefined {
  if (!error || typeof error !== 'object') return undefined;
  const sqlState = sqlStateOf(error);
  if (sqlState) {
    if (SQLSTATE_TO_CODE[sqlState]) return SQLSTATE_TO_CODE[sqlState];
    if (sqlState.startsWith('08')) return { code: ErrorCode.SERVICE_UNAVAILABLE, message: 'The database is unavailable' };
    return undefined;
  }
  const err = error as { code?: unknown; message?: unknown; driverError?: { code?: unknown; message?: unknown } };
  const errno = (err.driverError?.code ?? err.code) as string | undefined;
  if (errno && CONNECTION_ERROR_CODES.has(errno)) {
    return { code: ErrorCode.SERVICE_UNAVAILABLE, message: 'The database is unavailable' };
  }
  const message = String(err.driverError?.message ?? err.message ?? '');
  if (CONNECTION_ERROR_MESSAGES.some((fragment) => message.includes(fragment))) {
    return { code: ErrorCode.SERVICE_UNAVAILABLE, message: 'The database is unavailable' };
  }
  return undefined;
}

/** Whether the database cancelled the statement after a wait (a lock wait): answered 503, not an outage. */
export function isLockTimeout(error: unknown): boolean {
  return classifyDatabaseError(error)?.lockTimeout === true;
}

/** The unique constraint a Postgres unique violation names, for services that map it to their own code. */
export function uniqueViolationConstraint(error: unknown): string | undefined {
  const e = error as any;
  if (sqlStateOf(e) !== '23505') return undefined;
  return e?.driverError?.constraint ?? e?.constraint;
}
