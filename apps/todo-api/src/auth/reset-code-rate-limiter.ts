import { Injectable } from '@nestjs/common';
import { canonicalEmailDigest } from '#libs/accounts';
import { AttemptLimiter, rateLimitCounterKey, rateLimitIpAndEmailTracker, RateLimitStore, rateLimitTrackerOf, tightestRateLimitHeaders } from '#libs/common';

/**
 * Budgets of the password reset, all keyed by the e-mail as typed (its canonical digest), never
 * by the account: an unknown address is counted exactly like a registered one, so no answer,
 * header or refusal tells them apart.
 *
 * - A code's tries (decisions.md: 5) are counted per caller, (client IP, e-mail), not on the
 *   code: a stranger guessing spends their own tries, not the owner's. A new code requested from
 *   an address gives that address its tries back.
 * - Per e-mail, at most 5 codes and 25 judged guesses per hour, whichever binds first: with
 *   many addresses the chance to hit a 6-digit code stays at 25 in a million per hour.
 * - Per client IP, 30 guesses per hour at any e-mails.
 */
export const RESET_TRIES_PER_IP_AND_EMAIL = 5;
export const RESET_TRIES_WINDOW_SECONDS = 15 * 60;
export const RESET_GUESSES_PER_IP = 30;
export const RESET_GUESSES_PER_EMAIL = 25;
export const RESET_CODES_PER_EMAIL = 5;
export const RESET_HOURLY_WINDOW_SECONDS = 3600;
export const RESET_BUCKETS = {
  triesPerIpAndEmail: 'reset-code-tries',
  guessesPerIp: 'reset-code-guesses-ip',
  guessesPerEmail: 'reset-code-guesses-email',
  codesPerEmail: 'reset-codes-email',
} as const;

const tooMany = (retryAfterSeconds: number) => `Too many password-reset attempts for this e-mail or from this address; retry in ${retryAfterSeconds} s`;

@Injectable()
export class ResetCodeRateLimiter {
  constructor(
    private readonly attempts: AttemptLimiter,
    private readonly store: RateLimitStore,
  ) {}

  /** One more code for this e-mail (429 beyond 5 an hour); the caller's tries at it start over. */
  async newCode(ip: string | null, email: string): Promise<void> {
    const digest = canonicalEmailDigest(email);
    await this.attempts.count(
      [{ bucket: RESET_BUCKETS.codesPerEmail, tracker: rateLimitTrackerOf('email', digest), limit: RESET_CODES_PER_EMAIL, windowSeconds: RESET_HOURLY_WINDOW_SECONDS }],
      tooMany,
    );
    await this.store.reset(rateLimitCounterKey(RESET_BUCKETS.triesPerIpAndEmail, rateLimitIpAndEmailTracker(ip, digest)));
  }

  /**
   * Counts one guess before it is judged; answers the RateLimit-* headers of the tightest budget.
   * The caller's own budgets come first: a guess they refuse never reaches the e-mail's hourly
   * budget, so a flood from one address cannot use up the owner's guesses.
   */
  async guess(ip: string | null, email: string): Promise<Record<string, string>> {
    const digest = canonicalEmailDigest(email);
    const caller = await this.attempts.count(
      [
        { bucket: RESET_BUCKETS.triesPerIpAndEmail, tracker: rateLimitIpAndEmailTracker(ip, digest), limit: RESET_TRIES_PER_IP_AND_EMAIL, windowSeconds: RESET_TRIES_WINDOW_SECONDS },
        { bucket: RESET_BUCKETS.guessesPerIp, tracker: rateLimitTrackerOf('ip', ip ?? 'unknown'), limit: RESET_GUESSES_PER_IP, windowSeconds: RESET_HOURLY_WINDOW_SECONDS },
      ],
      tooMany,
    );
    const account = await this.attempts.count(
      [{ bucket: RESET_BUCKETS.guessesPerEmail, tracker: rateLimitTrackerOf('email', digest), limit: RESET_GUESSES_PER_EMAIL, windowSeconds: RESET_HOURLY_WINDOW_SECONDS }],
      tooMany,
    );
    return tightestRateLimitHeaders(caller.headers, account.headers);
  }
}
