import { Injectable } from '@nestjs/common';
import { canonicalEmailDigest } from '../accounts/canonical-email.js';
import { AttemptLimiter, type AttemptBudget, clientTrackerOf, rateLimitCounterKey, rateLimitIpAndEmailTracker, RateLimitStore, rateLimitTrackerOf } from '#libs/common';

/** decisions.md: 10 failed attempts per 15 minutes per (IP, e-mail), 100 per IP. */
const LOGIN_WINDOW_SECONDS = 15 * 60;
const LOGIN_FAILURES_PER_IP_AND_EMAIL = 10;
const LOGIN_FAILURES_PER_IP = 100;
/**
 * Per account, across every address: 50 failed attempts per hour for one canonical e-mail, then
 * the account is locked for sign-in until the hour's window ends. The owner's password reset
 * clears the lock, and the client network that completed the reset is exempt from it for
 * LOGIN_FAILURES_PER_ACCOUNT_WINDOW_SECONDS, so a distributed flood cannot lock the owner out
 * for good (the owner is still held to the per-(IP, e-mail) and per-IP budgets).
 */
const LOGIN_FAILURES_PER_ACCOUNT = 50;
const LOGIN_FAILURES_PER_ACCOUNT_WINDOW_SECONDS = 3600;
/** Counter buckets (keys `<bucket>:ip:<network>[:<e-mail digest>]`, `<bucket>:email:<digest>`). */
const LOGIN_FAILURE_BUCKETS = {
  ipAndEmail: 'login-fail',
  ip: 'login-fail-ip',
  account: 'login-fail-account',
  /** A (client network, e-mail) that completed the owner's password reset: not held to the account's lock. */
  resetExempt: 'login-reset-exempt',
} as const;

export interface LoginAttempt {
  /** RateLimit-* headers describing the tightest of the limits. */
  headers: Record<string, string>;
  /** A successful login takes its attempt back: only failures count. */
  succeeded(): Promise<void>;
}

/**
 * Failed-login limits (AttemptLimiter: counted before the password is checked, a blocked
 * attempt never reaches the check), keyed by the e-mail as typed, so they are the same for
 * known and unknown e-mails (a locked unknown address answers exactly like a locked account);
 * a success takes its count back. Fails closed: while the store is unreachable, sign-in answers 503.
 */
@Injectable()
export class LoginRateLimiter {
  constructor(
    private readonly attempts: AttemptLimiter,
    private readonly store: RateLimitStore,
  ) {}

  async begin(ip: string | null, email: string): Promise<LoginAttempt> {
    const digest = canonicalEmailDigest(email);
    const ipAndEmail = rateLimitIpAndEmailTracker(ip, digest);
    const budgets: AttemptBudget[] = [
      { bucket: LOGIN_FAILURE_BUCKETS.ipAndEmail, tracker: ipAndEmail, limit: LOGIN_FAILURES_PER_IP_AND_EMAIL, windowSeconds: LOGIN_WINDOW_SECONDS },
      { bucket: LOGIN_FAILURE_BUCKETS.ip, tracker: clientTrackerOf(ip), limit: LOGIN_FAILURES_PER_IP, windowSeconds: LOGIN_WINDOW_SECONDS },
    ];
    const exempt = (await this.store.peek(rateLimitCounterKey(LOGIN_FAILURE_BUCKETS.resetExempt, ipAndEmail))).hits > 0;
    if (!exempt) {
      budgets.push({ bucket: LOGIN_FAILURE_BUCKETS.account, tracker: rateLimitTrackerOf('email', digest), limit: LOGIN_FAILURES_PER_ACCOUNT, windowSeconds: LOGIN_FAILURES_PER_ACCOUNT_WINDOW_SECONDS });
    }
    const attempt = await this.attempts.count(budgets, (retryAfterSeconds) => `Too many failed sign-in attempts; retry in ${retryAfterSeconds} s`);
    return { headers: attempt.headers, succeeded: attempt.release };
  }

  /** The owner reset the password from `ip`: the account's lock ends, and that network is exempt from it for its window. */
  async passwordReset(ip: string | null, accountEmail: string): Promise<void> {
    const digest = canonicalEmailDigest(accountEmail);
    const ipAndEmail = rateLimitIpAndEmailTracker(ip, digest);
    await this.store.reset(rateLimitCounterKey(LOGIN_FAILURE_BUCKETS.account, rateLimitTrackerOf('email', digest)));
    await this.store.reset(rateLimitCounterKey(LOGIN_FAILURE_BUCKETS.ipAndEmail, ipAndEmail));
    await this.store.hit(rateLimitCounterKey(LOGIN_FAILURE_BUCKETS.resetExempt, ipAndEmail), LOGIN_FAILURES_PER_ACCOUNT_WINDOW_SECONDS * 1000);
  }
}
