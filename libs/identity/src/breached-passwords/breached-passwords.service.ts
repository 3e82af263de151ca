import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Counter } from 'prom-client';
import { AppException, AppMetrics, ErrorCode } from '#libs/common';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { BREACHED_PASSWORDS_CONFIG, rangeBaseUrlOf, type BreachedPasswordsConfig } from './breached-passwords.config.js';
import { breachCountIn, rangeKeyOf } from './pwned-range.js';

/** What the routes that take a new password say about the check in their OpenAPI description. */
export const BREACHED_PASSWORD_NOTE =
  'A new password found in a known data breach (a k-anonymity range lookup: only the first five hex characters of its SHA-1 leave ' +
  'the service) is 400 PASSWORD_BREACHED; when the range service cannot answer, the password is accepted.';

type UnavailableReason = 'timeout' | 'connection' | 'status';

/**
 * The breached-password rule of sign-up, password reset and password change: the password's SHA-1 is split
 * (k-anonymity: only its first five hex characters leave the service, with `Add-Padding` so the answer's size
 * says nothing either) and looked up in a Pwned Passwords range answer. Found at least once: 400
 * PASSWORD_BREACHED. The check fails open: a range service that is down, slow or erring lets the password
 * through, counted in `breached_password_checks_unavailable_total` and logged once per outage.
 */
@Injectable()
export class BreachedPasswordsService {
  private readonly logger = new Logger(BreachedPasswordsService.name);
  private readonly unavailable: Counter<'reason'>;
  private readonly rangeBaseUrl: string | undefined;
  /** Whether the last lookup failed: one warning per outage, not one per sign-up. */
  private failing = false;

  constructor(
    @Inject(BREACHED_PASSWORDS_CONFIG) private readonly config: BreachedPasswordsConfig,
    @Inject(APP_CONFIG) appConfig: AppConfig,
    metrics: AppMetrics,
  ) {
    this.rangeBaseUrl = rangeBaseUrlOf(config, appConfig.nodeEnv);
    this.unavailable = metrics.counter({
      name: 'breached_password_checks_unavailable_total',
      help: 'Breached-password checks that let the password through because the range service failed (reason: timeout, connection, status)',
      labelNames: ['reason'],
    });
  }

  /** Refuses a password known from a breach; answers quietly when it is not, or when nobody can tell. */
  async assertNotBreached(password: string): Promise<void> {
    const base = this.rangeBaseUrl;
    if (base === undefined) return;
    const { prefix, suffix } = rangeKeyOf(password);
    let body: string;
    try {
      const response = await fetch(`${base}/range/${prefix}`, {
        headers: { 'Add-Padding': 'true', Accept: 'text/plain', 'User-Agent': 'todo-api-breached-password-check' },
        signal: AbortSignal.timeout(this.config.timeoutMs),
      });
      if (!response.ok) {
        await response.body?.cancel();
        return this.failOpen('status', `range service answered HTTP ${response.status}`);
      }
      body = await response.text();
    } catch (error) {
      const reason = (error as Error).name === 'TimeoutError' ? 'timeout' : 'connection';
      return this.failOpen(reason, (error as Error).message);
    }
    if (this.failing) {
      this.failing = false;
      this.logger.log('Breached-password range service answers again; passwords are checked');
    }
    if (breachCountIn(body, suffix) > 0) {
      throw new AppException(ErrorCode.PASSWORD_BREACHED, 'This password appears in a known data breach and would be easy to guess; choose a different one');
    }
  }

  private failOpen(reason: UnavailableReason, problem: string): void {
    this.unavailable.inc({ reason });
    if (this.failing) return;
    this.failing = true;
    this.logger.warn({ reason, err: problem }, 'Breached-password range service unavailable; passwords are let through unchecked until it answers');
  }
}
