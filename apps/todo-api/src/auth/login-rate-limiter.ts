import { Injectable, Logger } from '@nestjs/common';
import { canonicalEmailDigest } from '#libs/accounts';
import { rateLimitCounterKey, rateLimitHeaders, RateLimitRejections, RateLimitStore, rateLimitTrackerOf } from '#libs/common';

/** decisions.md: 10 failed attempts per 15 minutes per (IP, e-mail), 100 per IP. */
export const LOGIN_WINDOW_SECONDS = 15 * 60;
export const LOGIN_FAILURES_PER_IP_AND_EMAIL = 10;
export const LOGIN_FAILURES_PER_IP = 100;
/** Counter buckets of the two limits (keys `<bucket>:ip:<address>[:<e-mail digest>]`). */
export const LOGIN_FAILURE_BUCKETS = { ipAndEmail: 'login-fail', ip: 'login-fail-ip' } as const;

export interface LoginAttempt {
  /** RateLimit-* headers describing the tighter of the two limits. */
  headers: Record<string, string>;
  /** A successful login takes its attempt back: only failures count. */
  succeeded(): Promise<void>;
}

/**
 * Failed-login limits on the shared counters (so they hold across replicas). Each attempt is
 * counted before the password is checked, so concurrent guesses cannot slip past the limit,
 * and a blocked attempt never reaches the password check; a success takes its count back.
 * Fails closed: while the store is unreachable, sign-in answers 503.
 */
@Injectable()
export class LoginRateLimiter {
  private readonly logger = new Logger(LoginRateLimiter.name);

  constructor(
    private readonly store: RateLimitStore,
    private readonly rejections: RateLimitRejections,
  ) {}

  async begin(ip: string | null, email: string): Promise<LoginAttempt> {
    const client = rateLimitTrackerOf('ip', ip ?? 'unknown');
    const emailDigest = canonicalEmailDigest(email);
    const limits = [
      { bucket: LOGIN_FAILURE_BUCKETS.ipAndEmail, key: rateLimitCounterKey(LOGIN_FAILURE_BUCKETS.ipAndEmail, `${client}:${emailDigest}`), limit: LOGIN_FAILURES_PER_IP_AND_EMAIL },
      { bucket: LOGIN_FAILURE_BUCKETS.ip, key: rateLimitCounterKey(LOGIN_FAILURE_BUCKETS.ip, client), limit: LOGIN_FAILURES_PER_IP },
    ];
    const windowMs = LOGIN_WINDOW_SECONDS * 1000;
    const counted = await Promise.all(limits.map(async (limit) => ({ ...limit, hit: await this.store.hit(limit.key, windowMs) })));
    const headers = counted
      .map(({ hit, limit }) => rateLimitHeaders(limit, hit))
      .reduce((tightest, next) => (Number(next['RateLimit-Remaining']) < Number(tightest['RateLimit-Remaining']) ? next : tightest));
    const blocked = counted.filter(({ hit, limit }) => hit.hits > limit);
    if (blocked.length > 0) {
      const retryAfterSeconds = Math.max(...blocked.map(({ hit }) => hit.resetSeconds));
      throw this.rejections.reject(blocked[0].bucket, retryAfterSeconds, `Too many failed sign-in attempts; retry in ${retryAfterSeconds} s`, headers);
    }
    return {
      headers,
      succeeded: async () => {
        // Best effort: a store that went away after the count must not fail a correct sign-in.
        await Promise.all(limits.map(({ key }) => this.store.release(key))).catch((error: Error) =>
          this.logger.warn({ err: error.message }, 'Could not take back a successful sign-in attempt'),
        );
      },
    };
  }
}
