import { createHash, timingSafeEqual } from 'node:crypto';
import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { AppException } from '../errors/app.exception.js';
import { ErrorCode } from '../errors/error-code.enum.js';
import { bearerTokenOf } from '../auth/credentials.js';

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

/**
 * GET /metrics: `Authorization: Bearer <METRICS_TOKEN>`, compared in constant time. Without
 * METRICS_TOKEN the endpoint does not exist (404, like any unknown path).
 */
@Injectable()
export class MetricsTokenGuard implements CanActivate {
  private readonly expected?: Buffer;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.expected = config.metricsToken ? digest(config.metricsToken) : undefined;
  }

  canActivate(context: ExecutionContext): boolean {
    if (!this.expected) throw new AppException(ErrorCode.NOT_FOUND, 'No such resource');
    const presented = bearerTokenOf(context.switchToHttp().getRequest<Request>());
    if (presented === undefined || !timingSafeEqual(digest(presented), this.expected)) {
      throw new AppException(ErrorCode.AUTH_REQUIRED, 'The metrics token is required (Authorization: Bearer)', undefined, { 'WWW-Authenticate': 'Bearer' });
    }
    return true;
  }
}
