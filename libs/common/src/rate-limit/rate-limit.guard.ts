import { ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request, Response } from 'express';
import { getPrincipal, type OwnCredential, type Principal } from '../auth/principal.js';
import { RATE_LIMIT_OPTIONS, type RateLimitOptions } from './rate-limit.constants.js';
import { clientTrackerOf, credentialTrackerOf, rateLimitCounterKey, rateLimitTrackerOf, tokenTrackerOf } from './rate-limit.keys.js';
import { countedHitOf } from './counting-lookups.service.js';
import { RateLimitStore, RateLimitStoreUnavailableError, toThrottlerRecord } from './rate-limit.store.js';
import { RateLimitRejections } from './rate-limit-rejections.service.js';
import { rateLimitHeaders } from './rate-limited.js';
import {
  InjectThrottlerOptions,
  ThrottlerGuard,
  type ThrottlerLimitDetail,
  type ThrottlerModuleOptions,
  type ThrottlerRequest,
  type ThrottlerStorageRecord,
} from './throttler.js';

/** The route's @RateLimit, if any. */
export function rateLimitOptionsFor(reflector: Reflector, context: ExecutionContext): RateLimitOptions | undefined {
  return reflector.getAllAndOverride<RateLimitOptions | undefined>(RATE_LIMIT_OPTIONS, [context.getHandler(), context.getClass()]);
}

/** Who a request counts against: the credential (or its session) when there is one, else the client IP. */
function rateLimitTracker(request: Request, options?: RateLimitOptions): string {
  return principalRateLimitTracker(getPrincipal(request), request.ip, options);
}

/** Who a principal counts against (rateLimitTracker's rule, for work that counts outside the guard, e.g. a bulk tool's items). */
export function principalRateLimitTracker(principal: Principal | undefined, ip: string | undefined, options?: RateLimitOptions): string {
  if (options?.per === 'session' && principal?.kind === 'user') return rateLimitTrackerOf('session', principal.sessionId);
  // An app's token credentials (their principals carry a tokenBudget) are counted per budget the app names, not per token.
  if (principal && 'tokenBudget' in principal && typeof principal.tokenBudget === 'string') return tokenTrackerOf(principal.kind, principal.tokenBudget);
  // An app's own credentials (OwnCredential, such as an API key) are counted per credential.
  const credentialId = (principal as Partial<OwnCredential> | undefined)?.credentialId;
  if (principal && typeof credentialId === 'string') return credentialTrackerOf(principal.kind, credentialId);
  switch (principal?.kind) {
    case 'oauth':
      return rateLimitTrackerOf('oauth-grant', principal.grantId);
    case 'user':
      return rateLimitTrackerOf('user', principal.userId);
    default:
      return clientTrackerOf(ip);
  }
}

/**
 * @nestjs/throttler's guard for @RateLimit routes: throttler resolves the route's @Throttle
 * limit and window, this class says who is counted (the credential, else the client IP), names
 * the counter `<bucket>:<tracker>` in the shared RateLimitStore, and answers in the house's
 * terms: `RateLimit-Limit/Remaining/Reset` (not X-RateLimit-*), and over the limit 429
 * RATE_LIMITED in the envelope with Retry-After. Runs after the auth guard, so the principal is
 * known; when the auth guard's credential lookup already counted the hit (CountingLookups), that count is used.
 * While the store is unreachable, the route's `storeOutage` decides: 503, or unlimited.
 */
@Injectable()
export class RateLimitGuard extends ThrottlerGuard {
  constructor(
    @InjectThrottlerOptions() options: ThrottlerModuleOptions,
    store: RateLimitStore,
    reflector: Reflector,
    private readonly rejections: RateLimitRejections,
  ) {
    super(options, store, reflector);
  }

  /** Only routes with @RateLimit are limited: no global default budget. */
  protected override async shouldSkip(context: ExecutionContext): Promise<boolean> {
    return !rateLimitOptionsFor(this.reflector, context);
  }

  protected override async getTracker(request: Record<string, any>): Promise<string> {
    return rateLimitTracker(request as Request);
  }

  protected override generateKey(context: ExecutionContext, tracker: string): string {
    return rateLimitCounterKey(rateLimitOptionsFor(this.reflector, context)!.bucket, tracker);
  }

  protected override async handleRequest({ context, limit, ttl, throttler, blockDuration, generateKey }: ThrottlerRequest): Promise<boolean> {
    const { req, res } = this.getRequestResponse(context);
    const options = rateLimitOptionsFor(this.reflector, context)!;
    const counted = countedHitOf(req as Request, options.bucket);
    // The route's options choose the tracker (per session or per credential): not throttler's getTracker(req).
    const tracker = counted ? '' : rateLimitTracker(req as Request, options);
    const key = counted ? '' : generateKey(context, tracker, throttler.name!);
    let record: ThrottlerStorageRecord;
    try {
      record = counted ? toThrottlerRecord(counted, limit) : await this.storageService.increment(key, ttl, limit, blockDuration, throttler.name!);
    } catch (error) {
      if (error instanceof RateLimitStoreUnavailableError && options.storeOutage === 'fail-open') return true;
      throw error;
    }
    if (record.isBlocked) await this.throwThrottlingException(context, { ...record, limit, ttl, key, tracker });
    const headers = rateLimitHeaders(limit, { hits: record.totalHits, resetSeconds: record.timeToExpire });
    for (const [name, value] of Object.entries(headers)) (res as Response).setHeader(name, value);
    return true;
  }

  protected override async throwThrottlingException(context: ExecutionContext, detail: ThrottlerLimitDetail): Promise<void> {
    const retryAfterSeconds = detail.timeToBlockExpire;
    throw this.rejections.reject(
      rateLimitOptionsFor(this.reflector, context)!.bucket,
      retryAfterSeconds,
      `Too many requests; retry in ${retryAfterSeconds} s`,
      rateLimitHeaders(detail.limit, { hits: detail.totalHits, resetSeconds: detail.timeToExpire }),
    );
  }
}
