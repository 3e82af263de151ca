import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request, Response } from 'express';
import { getPrincipal } from '../auth/principal.js';
import { AppException } from '../errors/app.exception.js';
import { ErrorCode } from '../errors/error-code.enum.js';
import { RATE_LIMIT_OPTIONS, type RateLimitOptions } from './rate-limit.constants.js';
import { PostgresRateLimitStore, type RateLimitHit } from './postgres-rate-limit.store.js';

/** The counter of a credential or IP in a bucket (routes sharing a bucket share it). */
export function rateLimitCounterKey(bucket: string, tracker: string): string {
  return `${bucket}:${tracker}`;
}

/** The route's @RateLimit, if any. */
export function rateLimitOptionsFor(reflector: Reflector, context: ExecutionContext): RateLimitOptions | undefined {
  return reflector.getAllAndOverride<RateLimitOptions | undefined>(RATE_LIMIT_OPTIONS, [context.getHandler(), context.getClass()]);
}

const COUNTED_HIT = Symbol('rate-limit-counted-hit');

/**
 * An auth guard that already counted this request's hit (in its credential lookup, see
 * PostgresRateLimitStore.lookupAndHit) records it here, and RateLimitGuard uses it
 * instead of counting again.
 */
export function recordCountedHit(request: Request, bucket: string, hit: RateLimitHit): void {
  (request as Request & { [COUNTED_HIT]?: { bucket: string; hit: RateLimitHit } })[COUNTED_HIT] = { bucket, hit };
}

/** The request an auth guard authenticates, and its route's @RateLimit (if any) to count it against. */
export interface RateLimitCounting {
  request: Request;
  limit?: RateLimitOptions;
}

/**
 * A credential lookup for an auth guard: on a rate-limited route the counting variant (which
 * counts the hit in the lookup's own statement, see PostgresRateLimitStore.lookupAndHit), its
 * count handed to RateLimitGuard; elsewhere the plain lookup.
 */
export async function lookUpCounting<T>(
  counting: RateLimitCounting | undefined,
  lookUp: () => Promise<T | undefined>,
  lookUpAndCount: (limit: RateLimitOptions) => Promise<{ row: T; hit?: RateLimitHit } | undefined>,
): Promise<T | undefined> {
  if (!counting?.limit) return lookUp();
  const found = await lookUpAndCount(counting.limit);
  if (found?.hit) recordCountedHit(counting.request, counting.limit.bucket, found.hit);
  return found?.row;
}

function countedHit(request: Request, bucket: string): RateLimitHit | undefined {
  const counted = (request as Request & { [COUNTED_HIT]?: { bucket: string; hit: RateLimitHit } })[COUNTED_HIT];
  return counted?.bucket === bucket ? counted.hit : undefined;
}

/** Counter-name prefixes of the credentials a request can count against (followed by the credential's id). */
export const CREDENTIAL_TRACKER_PREFIX = { apiKey: 'api-key:', siteToken: 'site-token:', portfolioToken: 'portfolio-token:' } as const;

/** Who a request counts against: the credential when there is one, else the client IP. */
export function rateLimitTracker(request: Request): string {
  const principal = getPrincipal(request);
  switch (principal?.kind) {
    case 'api-key':
      return CREDENTIAL_TRACKER_PREFIX.apiKey + principal.apiKeyId;
    case 'site':
      return CREDENTIAL_TRACKER_PREFIX.siteToken + principal.tokenId;
    case 'portfolio':
      return CREDENTIAL_TRACKER_PREFIX.portfolioToken + principal.tokenId;
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
    const options = rateLimitOptionsFor(this.reflector, context);
    if (!options) return true;
    const request = context.switchToHttp().getRequest<Request>();
    const response = context.switchToHttp().getResponse<Response>();
    const { hits, resetSeconds } =
      countedHit(request, options.bucket) ?? (await this.store.hit(rateLimitCounterKey(options.bucket, rateLimitTracker(request)), options.windowSeconds * 1000));
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
