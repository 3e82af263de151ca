import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { AppException, ErrorCode, PostgresRateLimitStore, type RateLimitHit } from '#libs/common';

/** decisions.md: 10 failed attempts per 15 minutes per (IP, e-mail), 100 per IP. */
export const LOGIN_WINDOW_SECONDS = 15 * 60;
export const LOGIN_FAILURES_PER_IP_AND_EMAIL = 10;
export const LOGIN_FAILURES_PER_IP = 100;

export interface LoginAttempt {
  /** RateLimit-* headers describing the tighter of the two limits. */
  headers: Record<string, string>;
  /** A successful login takes its attempt back: only failures count. */
  succeeded(): Promise<void>;
}

/**
 * Failed-login limits on the shared Postgres counters (so they hold across replicas).
 * Each attempt is counted before the password is checked, so concurrent guesses cannot
 * slip past the limit, and a blocked attempt never reaches the password check; a success
 * takes its count back.
 */
@Injectable()
export class LoginRateLimiter {
  constructor(private readonly store: PostgresRateLimitStore) {}

  async begin(ip: string | null, email: string): Promise<LoginAttempt> {
    const client = ip ?? 'unknown';
    const emailDigest = createHash('sha256').update(email.trim().toLowerCase()).digest('hex').slice(0, 32);
    const pairKey = `login-fail:${client}:${emailDigest}`;
    const ipKey = `login-fail-ip:${client}`;
    const windowMs = LOGIN_WINDOW_SECONDS * 1000;
    const [pair, perIp] = await Promise.all([this.store.hit(pairKey, windowMs), this.store.hit(ipKey, windowMs)]);
    const headers = tighter(headersOf(pair, LOGIN_FAILURES_PER_IP_AND_EMAIL), headersOf(perIp, LOGIN_FAILURES_PER_IP));
    const blocked = [
      { hit: pair, limit: LOGIN_FAILURES_PER_IP_AND_EMAIL },
      { hit: perIp, limit: LOGIN_FAILURES_PER_IP },
    ].filter(({ hit, limit }) => hit.hits > limit);
    if (blocked.length > 0) {
      const retryAfter = Math.max(...blocked.map(({ hit }) => hit.resetSeconds));
      throw new AppException(ErrorCode.RATE_LIMITED, `Too many failed sign-in attempts; retry in ${retryAfter} s`, undefined, {
        ...headers,
        'Retry-After': String(retryAfter),
      });
    }
    return {
      headers,
      succeeded: async () => {
        await Promise.all([this.store.release(pairKey), this.store.release(ipKey)]);
      },
    };
  }
}

function headersOf(hit: RateLimitHit, limit: number): Record<string, string> {
  return {
    'RateLimit-Limit': String(limit),
    'RateLimit-Remaining': String(Math.max(0, limit - hit.hits)),
    'RateLimit-Reset': String(hit.resetSeconds),
  };
}

function tighter(a: Record<string, string>, b: Record<string, string>): Record<string, string> {
  return Number(a['RateLimit-Remaining']) <= Number(b['RateLimit-Remaining']) ? a : b;
}
