import { Injectable, Logger } from '@nestjs/common';
import { rateLimitCounterKey } from './rate-limit.keys.js';
import { RateLimitRejections } from './rate-limit-rejections.service.js';
import { RateLimitStore, type RateLimitHit } from './rate-limit.store.js';
import { rateLimitHeaders } from './rate-limited.js';

/** One budget an attempt is counted against: `limit` per `windowSeconds` per counter `<bucket>:<tracker>`. */
export interface AttemptBudget {
  bucket: string;
  tracker: string;
  limit: number;
  windowSeconds: number;
}

export interface CountedAttempt {
  /** RateLimit-* headers of the budget with the fewest attempts left. */
  headers: Record<string, string>;
  /** Takes the attempt back (e.g. a successful sign-in: only failures count). Best effort. */
  release(): Promise<void>;
}

/** The headers of whichever set has the fewest attempts left. */
export function tightestRateLimitHeaders(...sets: Array<Record<string, string>>): Record<string, string> {
  return sets.reduce((tightest, next) => (Number(next['RateLimit-Remaining']) < Number(tightest['RateLimit-Remaining']) ? next : tightest));
}

/**
 * Custom counting for guesses at a secret (password, reset code, admin key) on the shared
 * counters, so the limits hold across replicas. Each attempt is counted against every budget
 * before the secret is checked, so concurrent guesses cannot slip past a limit, and a refused
 * attempt never reaches the check. Over any budget: 429 through RateLimitRejections, with
 * Retry-After (until the last refusing window ends) and the tightest budget's headers.
 * Fails closed: while the store is unreachable the store's 503 goes through.
 */
@Injectable()
export class AttemptLimiter {
  private readonly logger = new Logger(AttemptLimiter.name);

  constructor(
    private readonly store: RateLimitStore,
    private readonly rejections: RateLimitRejections,
  ) {}

  async count(budgets: AttemptBudget[], message: (retryAfterSeconds: number) => string): Promise<CountedAttempt> {
    const counted = await Promise.all(
      budgets.map(async (budget) => {
        const key = rateLimitCounterKey(budget.bucket, budget.tracker);
        const hit: RateLimitHit = await this.store.hit(key, budget.windowSeconds * 1000);
        return { ...budget, key, hit };
      }),
    );
    const headers = tightestRateLimitHeaders(...counted.map(({ limit, hit }) => rateLimitHeaders(limit, hit)));
    const blocked = counted.filter(({ hit, limit }) => hit.hits > limit);
    if (blocked.length > 0) {
      const retryAfterSeconds = Math.max(...blocked.map(({ hit }) => hit.resetSeconds));
      throw this.rejections.reject(blocked[0].bucket, retryAfterSeconds, message(retryAfterSeconds), headers);
    }
    return {
      headers,
      release: async () => {
        // A store that went away after the count must not fail the request that succeeded.
        await Promise.all(counted.map(({ key }) => this.store.release(key))).catch((error: Error) =>
          this.logger.warn({ err: error.message }, 'Could not take back an attempt that did not count'),
        );
      },
    };
  }
}
