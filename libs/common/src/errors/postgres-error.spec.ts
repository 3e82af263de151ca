import { describe, expect, it } from '@jest/globals';
import type { Request } from 'express';
import pg from 'pg';
import { QueryFailedError } from 'typeorm';
import { resolveError, unavailableDependencyOf } from '../http/all-exceptions.filter.js';
import { ErrorCode } from './error-code.enum.js';
import { classifyDatabaseError, isLockTimeout } from './postgres-error.js';

/** What TypeORM throws for a statement the server refused with `sqlState`. */
function serverError(sqlState: string, message: string): QueryFailedError {
  const driverError = new pg.DatabaseError(message, 0, 'error');
  driverError.code = sqlState;
  return new QueryFailedError('UPDATE feedback_owner_clock SET last_at = now()', [], driverError);
}

const request = {} as Request;

describe('database errors: lock waits are not outages', () => {
  it.each([
    ['57014', 'canceling statement due to statement timeout'],
    ['55P03', 'canceling statement due to lock timeout'],
  ])('%s answers 503 with Retry-After and its own message, counted as a lock timeout, naming no unavailable dependency', (sqlState, message) => {
    const error = serverError(sqlState, message);
    expect(isLockTimeout(error)).toBe(true);
    expect(unavailableDependencyOf(error)).toBeUndefined();
    const resolved = resolveError(error, request);
    expect(resolved.code).toBe(ErrorCode.SERVICE_UNAVAILABLE);
    expect(resolved.dependency).toBeUndefined();
    expect(resolved.lockTimeout).toBe(true);
    expect(resolved.message).toMatch(/concurrent request/);
    expect(resolved.headers?.['Retry-After']).toMatch(/^\d+$/);
  });

  it.each([
    ['57P01', 'terminating connection due to administrator command'],
    ['08006', 'connection failure'],
  ])('%s is still an outage of the database', (sqlState, message) => {
    const error = serverError(sqlState, message);
    expect(isLockTimeout(error)).toBe(false);
    expect(unavailableDependencyOf(error)).toBe('database');
    expect(resolveError(error, request).dependency).toBe('database');
  });

  it("keeps the client's own query timeout (no answer at all) an outage", () => {
    const error = new Error('Query read timeout');
    expect(classifyDatabaseError(error)?.lockTimeout).toBeUndefined();
    expect(unavailableDependencyOf(error)).toBe('database');
  });
});
