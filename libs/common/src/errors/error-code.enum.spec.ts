import { describe, expect, it } from '@jest/globals';
import { ERROR_CATALOGUE, ErrorCode, isRetryableUnavailability, publicCodeOf, statusOf } from './error-code.enum.js';

describe('error catalogue', () => {
  it('gives every code a 4xx or 5xx status', () => {
    for (const code of Object.values(ErrorCode)) {
      expect(ERROR_CATALOGUE[code]).toBeDefined();
      expect(statusOf(code)).toBeGreaterThanOrEqual(400);
      expect(statusOf(code)).toBeLessThan(600);
    }
  });

  it('matches the published statuses', () => {
    expect(statusOf(ErrorCode.VALIDATION_ERROR)).toBe(400);
    expect(statusOf(ErrorCode.SUBSCRIPTION_REQUIRED)).toBe(402);
    expect(statusOf(ErrorCode.BETA_LIFETIME_ACCESS)).toBe(409);
    expect(statusOf(ErrorCode.SERVICE_DEGRADED)).toBe(503);
    expect(statusOf(ErrorCode.INVALID_TOKEN)).toBe(401);
  });

  it('publishes the reset-token failure as INVALID_TOKEN with 400', () => {
    expect(publicCodeOf(ErrorCode.INVALID_RESET_TOKEN)).toBe('INVALID_TOKEN');
    expect(statusOf(ErrorCode.INVALID_RESET_TOKEN)).toBe(400);
  });

  it('answers Retry-After on every 503 but a permanent one (billing not configured)', () => {
    expect(isRetryableUnavailability(ErrorCode.SERVICE_UNAVAILABLE)).toBe(true);
    expect(isRetryableUnavailability(ErrorCode.SERVICE_DEGRADED)).toBe(true);
    expect(isRetryableUnavailability(ErrorCode.BILLING_UNAVAILABLE)).toBe(false);
    expect(isRetryableUnavailability(ErrorCode.RATE_LIMITED)).toBe(false);
  });
});
