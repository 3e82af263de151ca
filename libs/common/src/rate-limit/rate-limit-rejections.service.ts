import { Injectable } from '@nestjs/common';
import type { Counter } from 'prom-client';
import { AppException } from '../errors/app.exception.js';
import { ErrorCode } from '../errors/error-code.enum.js';
import { AppMetrics } from '../metrics/app-metrics.js';

/**
 * The one place a request is refused for a rate limit (RateLimitGuard, the login limiter, and
 * whatever replaces them): counts the rejection by limit and builds the 429 with `Retry-After`.
 */
@Injectable()
export class RateLimitRejections {
  private readonly rejections: Counter<'limit'>;

  constructor(metrics: AppMetrics) {
    this.rejections = metrics.counter({
      name: 'rate_limit_rejections_total',
      help: 'Requests refused with 429, by limit (the @RateLimit bucket, or login-fail / login-fail-ip)',
      labelNames: ['limit'],
    });
  }

  /** The exception to throw; `headers` are the RateLimit-* headers of the limit that refused. */
  reject(limit: string, retryAfterSeconds: number, message: string, headers: Record<string, string>): AppException {
    this.rejections.inc({ limit });
    return new AppException(ErrorCode.RATE_LIMITED, message, undefined, { ...headers, 'Retry-After': String(retryAfterSeconds) });
  }
}
