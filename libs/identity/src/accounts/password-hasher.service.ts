import { createHash, randomBytes } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { Inject, Injectable } from '@nestjs/common';
import bcrypt from 'bcrypt';
import { AppMetrics, PrioritySemaphore } from '#libs/common';
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
/**
 * Two lanes share the slots. `sign-in` (checking a password: login, change-password, account
 * deletion) is served first; `new-password` (hashing a new one: signup, reset, change) waits
 * behind it in a shorter queue of its own. A signup flood from many addresses then fills only
 * its own queue (then 503) and delays a login by at most the hashes already running.
 */
export const HASHING_QUEUE = { 'sign-in': 256, 'new-password': 64 } as const;
export type HashingLane = keyof typeof HASHING_QUEUE;

@Injectable()
export class PasswordHasher {
  private readonly cost: number;
  private readonly slots: PrioritySemaphore<HashingLane>;
  /** A hash at the configured cost, made on first need, to compare unknown accounts against. */
  private dummyHash?: Promise<string>;

  constructor(@Inject(APP_CONFIG) config: AppConfig, metrics: AppMetrics) {
    this.cost = config.bcryptCost;
    const rejections = metrics.counter({
      name: 'password_hashing_rejections_total',
      help: 'Password hashes and checks refused with 503 because their lane\'s queue was full (sign-in or signup storms)',
      labelNames: ['lane'],
    });
    // Both series exist from the start (a labelled counter shows nothing until it is used).
    for (const name of Object.keys(HASHING_QUEUE)) rejections.inc({ lane: name }, 0);
    const lane = (name: HashingLane, busyMessage: string) => ({ maxWaiting: HASHING_QUEUE[name], busyMessage, onRefused: () => rejections.inc({ lane: name }) });
    // Key order is priority order: checks of existing passwords first.
    const slots = (this.slots = new PrioritySemaphore(HASHING_SLOTS, {
      'sign-in': lane('sign-in', 'Too many sign-ins are being processed; retry shortly'),
      'new-password': lane('new-password', 'Too many sign-ups and password changes are being processed; retry shortly'),
    }));
    metrics.gauge({
      name: 'password_hashing_queue_depth',
      help: `Password hashes and checks waiting for a hashing slot, by lane (at most ${HASHING_QUEUE['sign-in']} sign-in, ${HASHING_QUEUE['new-password']} new-password; beyond that, 503)`,
      labelNames: ['lane'],
      collect() {
        for (const name of Object.keys(HASHING_QUEUE) as HashingLane[]) this.set({ lane: name }, slots.queued(name));
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

  /** A new password (signup, reset, change): the `new-password` lane. */
  hash(password: string): Promise<string> {
    return this.slots.run('new-password', () => bcrypt.hash(prehashPassword(password), this.cost));
  }

  /** A presented password against the stored hash: the `sign-in` lane. */
  verify(password: string, hash: string): Promise<boolean> {
    return this.slots.run('sign-in', () => bcrypt.compare(prehashPassword(password), hash));
  }

  /**
   * Burns the same time as a real check, for unknown accounts, so response time does not
   * tell whether an e-mail is registered.
   */
  async verifyNothing(password: string): Promise<false> {
    this.dummyHash ??= this.slots.run('sign-in', () => bcrypt.hash(randomBytes(16).toString('hex'), this.cost));
    const dummy = await this.dummyHash;
    await this.slots.run('sign-in', () => bcrypt.compare(prehashPassword(password), dummy));
    return false;
  }
}
