import { Injectable } from '@nestjs/common';
import { AttemptLimiter, type AttemptBudget, clientTrackerOf, rateLimitTrackerOf } from '#libs/common';

/**
 * Second-factor guesses (a TOTP or recovery code at sign-in, at enrolment's confirmation, at a fresh check), counted
 * like failed sign-ins (AttemptLimiter: before the code is checked, a refused attempt never reaches the check, a
 * right code takes its attempt back): 10 per 15 minutes and 30 per day per account, wherever they come from (a
 * 6-digit code must not be guessable from many addresses), and 100 per 15 minutes per client network at any account.
 * Beyond any of them 429 RATE_LIMITED with Retry-After. Only someone holding the account's password (or a session)
 * reaches these budgets, so counting per account tells nobody whether an account exists.
 */
const MFA_WINDOW_SECONDS = 15 * 60;
export const MFA_FAILURES_PER_ACCOUNT = 10;
export const MFA_FAILURES_PER_ACCOUNT_PER_DAY = 30;
const MFA_DAY_SECONDS = 24 * 3600;
export const MFA_FAILURES_PER_IP = 100;
const MFA_FAILURE_BUCKETS = {
  account: 'mfa-fail-account',
  accountDay: 'mfa-fail-account-day',
  ip: 'mfa-fail-ip',
} as const;

export interface FactorAttempt {
  headers: Record<string, string>;
  /** A right code takes its attempt back: only failures count. */
  succeeded(): Promise<void>;
}

const tooMany = (retryAfterSeconds: number) => `Too many second-factor attempts; retry in ${retryAfterSeconds} s`;

@Injectable()
export class SecondFactorRateLimiter {
  constructor(private readonly attempts: AttemptLimiter) {}

  /** One guess from `ip` at the account `userId` (null: a challenge that names no account, counted per address only). */
  async begin(ip: string | null, userId: string | null): Promise<FactorAttempt> {
    const budgets: AttemptBudget[] = [{ bucket: MFA_FAILURE_BUCKETS.ip, tracker: clientTrackerOf(ip), limit: MFA_FAILURES_PER_IP, windowSeconds: MFA_WINDOW_SECONDS }];
    if (userId !== null) {
      const account = rateLimitTrackerOf('user', userId);
      budgets.push(
        { bucket: MFA_FAILURE_BUCKETS.account, tracker: account, limit: MFA_FAILURES_PER_ACCOUNT, windowSeconds: MFA_WINDOW_SECONDS },
        { bucket: MFA_FAILURE_BUCKETS.accountDay, tracker: account, limit: MFA_FAILURES_PER_ACCOUNT_PER_DAY, windowSeconds: MFA_DAY_SECONDS },
      );
    }
    const attempt = await this.attempts.count(budgets, tooMany);
    return { headers: attempt.headers, succeeded: attempt.release };
  }
}
