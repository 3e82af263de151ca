import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request, Response } from 'express';
import { getPrincipal } from '../auth/principal.js';
import { AppException } from '../errors/app.exception.js';
import { ErrorCode } from '../errors/error-code.enum.js';
import { RATE_LIMIT_OPTIONS, type RateLimitOptions } from './rate-limit.constants.js';
import { PostgresRateLimitStore } from './postgres-rate-limit.store.js';

/** Who a request counts against: the credential when there is one, else the client IP. */
export function rateLimitTracker(request: Request): string {
  const principal = getPrincipal(request);
  switch (principal?.kind) {
    case 'api-key':
      return `api-key:${principal.apiKeyId}`;
    case 'site':
      return `site-token:${principal.tokenId}`;
    case 'portfolio':
      return `portfolio-token:${principal.tokenId}`;
    case 'user':
      return `user:${principal.userId}`;
    default:
      return `ip:${request.ip ?? 'unknown'}`;
  }
}

/**
 * Enforces @RateLimit on a route with the shared Postgres store, sending `RateLimit-Limit`,
 * `RateLimit-Remaining`, `RateLimit-Reset` (and `Retry-After` on 429). Runs after the auth
 * guard, so the principal is known.
 */
@Injectable()
export class RateLimitGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly store: PostgresRateLimitStore,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const options = this.reflector.getAllAndOverride<RateLimitOptions | undefined>(RATE_LIMIT_OPTIONS, [context.getHandler(), context.getClass()]);
    if (!options) return true;
    const request = context.switchToHttp().getRequest<Request>();
    const response = context.switchToHttp().getResponse<Response>();
    const { hits, resetSeconds } = await this.store.hit(`${options.bucket}:${rateLimitTracker(request)}`, options.windowSeconds * 1000);
    const headers: Record<string, string> = {
      'RateLimit-Limit': String(options.limit),
      'RateLimit-Remaining': String(Math.max(0, options.limit - hits)),
      'RateLimit-Reset': String(resetSeconds),
    };
    if (hits > options.limit) {
      throw new AppException(ErrorCode.RATE_LIMITED, `Too many requests; retry in ${resetSeconds} s`, undefined, {
        ...headers,
        'Retry-After': String(resetSeconds),
      });
    }
    for (const [name, value] of Object.entries(headers)) response.setHeader(name, value);
    return true;
  }
}
