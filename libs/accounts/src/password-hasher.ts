import { createHash, randomBytes } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { Inject, Injectable } from '@nestjs/common';
import bcrypt from 'bcrypt';
import { AppMetrics, Semaphore } from '#libs/common';
import { APP_CONFIG, type AppConfig } from '#libs/config';

/**
 * bcrypt reads at most 72 bytes, and a 128-character password can be 512 UTF-8 bytes.
 * Rather than truncate silently, every password is pre-hashed with SHA-384 (64 base64
 * characters) so all of it counts.
 */
export function prehashPassword(password: string): string {
  return createHash('sha384').update(password, 'utf8').digest('base64');
}

/**
 * bcrypt runs on libuv's thread pool (4 threads). On a small machine a burst of logins would
 * take every core from the event loop and stall every other route, so hashing is limited to
 * one thread fewer than there are cores; a long queue answers 503 rather than waiting forever.
 */
export const HASHING_SLOTS = Math.max(1, availableParallelism() - 1);
export const HASHING_QUEUE = 256;

@Injectable()
export class PasswordHasher {
  private readonly cost: number;
  private readonly slots: Semaphore;
  /** A hash at the configured cost, made on first need, to compare unknown accounts against. */
  private dummyHash?: Promise<string>;

  constructor(@Inject(APP_CONFIG) config: AppConfig, metrics: AppMetrics) {
    this.cost = config.bcryptCost;
    const rejections = metrics.counter({
      name: 'password_hashing_rejections_total',
      help: 'Password hashes and checks refused with 503 because the hashing queue was full (sign-in storms)',
    });
    const slots = (this.slots = new Semaphore(HASHING_SLOTS, HASHING_QUEUE, 'Too many sign-ins are being processed; retry shortly', () => rejections.inc()));
    metrics.gauge({
      name: 'password_hashing_queue_depth',
      help: `Password hashes and checks waiting for a hashing slot (at most ${HASHING_QUEUE}; beyond that, 503)`,
      collect() {
        this.set(slots.queued);
      },
    });
    metrics.gauge({
      name: 'password_hashing_in_progress',
      help: `Password hashes and checks running (at most ${HASHING_SLOTS}, one fewer than the cores)`,
      collect() {
        this.set(slots.active);
      },
    });
  }

  hash(password: string): Promise<string> {
    return this.slots.run(() => bcrypt.hash(prehashPassword(password), this.cost));
  }

  verify(password: string, hash: string): Promise<boolean> {
    return this.slots.run(() => bcrypt.compare(prehashPassword(password), hash));
  }

  /**
   * Burns the same time as a real check, for unknown accounts, so response time does not
   * tell whether an e-mail is registered.
   */
  async verifyNothing(password: string): Promise<false> {
    this.dummyHash ??= this.slots.run(() => bcrypt.hash(randomBytes(16).toString('hex'), this.cost));
    const dummy = await this.dummyHash;
    await this.slots.run(() => bcrypt.compare(prehashPassword(password), dummy));
    return false;
  }
}
