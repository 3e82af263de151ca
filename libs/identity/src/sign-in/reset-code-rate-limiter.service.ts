import { Injectable } from '@nestjs/common';
import { canonicalEmailDigest } from '../accounts/canonical-email.js';
import { AttemptLimiter, clientTrackerOf, rateLimitCounterKey, rateLimitHeaders, rateLimitIpAndEmailTracker, RateLimitStore, rateLimitTrackerOf, tightestRateLimitHeaders } from '#libs/common';

/**
 * Budgets of the password reset, all keyed by the e-mail as typed (its canonical digest), never
 * by the account: an unknown address is counted exactly like a registered one, so no answer,
 * header or refusal tells them apart.
 *
 * - A code's tries (decisions.md: at most 5 wrong tries) are counted per caller, (client IP,
 *   e-mail), not on the code: a stranger guessing spends their own tries, not the owner's. Past
 *   them the code is dead for that caller: 400 INVALID_RESET_CODE, as for any code that does not
 *   work (the published answer), never judged. A new code requested from an address gives that
 *   address its tries back.
 * - Per e-mail, at most 5 codes and 25 judged guesses per hour, whichever binds first: with
 *   many addresses the chance to hit a 6-digit code stays at 25 in a million per hour.
 * - Per client IP, 30 guesses per hour at any e-mails.
 */
const RESET_TRIES_PER_IP_AND_EMAIL = 5;
const RESET_TRIES_WINDOW_SECONDS = 15 * 60;
const RESET_GUESSES_PER_IP = 30;
const RESET_GUESSES_PER_EMAIL = 25;
const RESET_CODES_PER_EMAIL = 5;
const RESET_HOURLY_WINDOW_SECONDS = 3600;
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
   * Counts one guess before it is judged. Over the client IP's or the e-mail's hourly budget:
   * 429. Past the caller's 5 tries at this e-mail: `judge: false`, the code is not looked at
   * (and the e-mail's budget not spent). The caller's own budgets come first, so a flood from
   * one address cannot use up the owner's guesses. Headers: the tightest budget's RateLimit-*.
   */
  async guess(ip: string | null, email: string): Promise<{ judge: boolean; headers: Record<string, string> }> {
    const digest = canonicalEmailDigest(email);
    const perIp = await this.attempts.count(
      [{ bucket: RESET_BUCKETS.guessesPerIp, tracker: clientTrackerOf(ip), limit: RESET_GUESSES_PER_IP, windowSeconds: RESET_HOURLY_WINDOW_SECONDS }],
      tooMany,
    );
    const tries = await this.store.hit(rateLimitCounterKey(RESET_BUCKETS.triesPerIpAndEmail, rateLimitIpAndEmailTracker(ip, digest)), RESET_TRIES_WINDOW_SECONDS * 1000);
    const triesHeaders = rateLimitHeaders(RESET_TRIES_PER_IP_AND_EMAIL, tries);
    if (tries.hits > RESET_TRIES_PER_IP_AND_EMAIL) return { judge: false, headers: triesHeaders };
    const account = await this.attempts.count(
      [{ bucket: RESET_BUCKETS.guessesPerEmail, tracker: rateLimitTrackerOf('email', digest), limit: RESET_GUESSES_PER_EMAIL, windowSeconds: RESET_HOURLY_WINDOW_SECONDS }],
      tooMany,
    );
    return { judge: true, headers: tightestRateLimitHeaders(perIp.headers, triesHeaders, account.headers) };
  }
}
