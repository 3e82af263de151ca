import { createHash, timingSafeEqual } from 'node:crypto';
import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { AppException, AttemptLimiter, ErrorCode, clientTrackerOf, setPrincipal } from '#libs/common';
import { ADMIN_KEY_HEADER } from './admin-key.schemes.js';
import { BILLING_CONFIG, type BillingConfig } from './billing.config.js';

/** Failed admin-key attempts allowed per client IP and window; then 429 without checking the key. */
export const ADMIN_KEY_FAILURES_PER_IP = 10;
export const ADMIN_KEY_WINDOW_SECONDS = 15 * 60;
const ADMIN_KEY_FAILURE_BUCKET = 'admin-key-fail';

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

/**
 * `X-Admin-API-Key`, compared in constant time. Failures are limited per client IP
 * (AttemptLimiter: counted before the comparison, a correct key takes its count back), fail
 * closed. Without ADMIN_API_KEY configured, always 401 and nothing is counted (there is nothing
 * to guess, and decisions.md says always 401).
 */
@Injectable()
export class AdminKeyGuard implements CanActivate {
  private readonly expected?: Buffer;

  constructor(
    @Inject(BILLING_CONFIG) config: BillingConfig,
    private readonly attempts: AttemptLimiter,
  ) {
    this.expected = config.adminApiKey ? digest(config.adminApiKey) : undefined;
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<Request>();
    if (!this.expected) throw this.refused();
    const attempt = await this.attempts.count(
      [{ bucket: ADMIN_KEY_FAILURE_BUCKET, tracker: clientTrackerOf(request.ip), limit: ADMIN_KEY_FAILURES_PER_IP, windowSeconds: ADMIN_KEY_WINDOW_SECONDS }],
      (retryAfterSeconds) => `Too many failed admin-key attempts; retry in ${retryAfterSeconds} s`,
    );
    const presented = request.headers[ADMIN_KEY_HEADER];
    if (typeof presented !== 'string' || !timingSafeEqual(digest(presented), this.expected)) throw this.refused(attempt.headers);
    await attempt.release();
    setPrincipal(request, { kind: 'admin' });
    return true;
  }

  private refused(headers?: Record<string, string>): AppException {
    return new AppException(ErrorCode.ADMIN_AUTH_REQUIRED, 'A valid admin key is required (X-Admin-API-Key)', undefined, headers);
  }
}
