import { Injectable } from '@nestjs/common';
import { canonicalEmailDigest } from '#libs/accounts';
import { AttemptLimiter, rateLimitIpAndEmailTracker, rateLimitTrackerOf } from '#libs/common';

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
 * Failed-login limits (AttemptLimiter: counted before the password is checked, a blocked
 * attempt never reaches the check), the same for known and unknown e-mails; a success takes
 * its count back. Fails closed: while the store is unreachable, sign-in answers 503.
 */
@Injectable()
export class LoginRateLimiter {
  constructor(private readonly attempts: AttemptLimiter) {}

  async begin(ip: string | null, email: string): Promise<LoginAttempt> {
    const attempt = await this.attempts.count(
      [
        { bucket: LOGIN_FAILURE_BUCKETS.ipAndEmail, tracker: rateLimitIpAndEmailTracker(ip, canonicalEmailDigest(email)), limit: LOGIN_FAILURES_PER_IP_AND_EMAIL, windowSeconds: LOGIN_WINDOW_SECONDS },
        { bucket: LOGIN_FAILURE_BUCKETS.ip, tracker: rateLimitTrackerOf('ip', ip ?? 'unknown'), limit: LOGIN_FAILURES_PER_IP, windowSeconds: LOGIN_WINDOW_SECONDS },
      ],
      (retryAfterSeconds) => `Too many failed sign-in attempts; retry in ${retryAfterSeconds} s`,
    );
    return { headers: attempt.headers, succeeded: attempt.release };
  }
}
