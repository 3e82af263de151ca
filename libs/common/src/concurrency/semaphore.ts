import { AppException } from '../errors/app.exception.js';
import { ErrorCode } from '../errors/error-code.enum.js';

/**
 * Runs at most `permits` tasks at once; up to `maxWaiting` more wait their turn in order,
 * and beyond that a task is refused with 503 SERVICE_UNAVAILABLE (Retry-After) instead of
 * queueing without bound.
 */
export class Semaphore {
  private readonly waiting: Array<() => void> = [];
  private available: number;

  constructor(
    private readonly permits: number,
    private readonly maxWaiting: number,
    private readonly busyMessage = 'The service is busy; retry shortly',
    /** Told of each task refused because the queue was full (a metric). */
    private readonly onRefused?: () => void,
  ) {
    this.available = permits;
  }

  get active(): number {
    return this.permits - this.available;
  }

  get queued(): number {
    return this.waiting.length;
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.available > 0) {
      this.available--;
    } else {
      if (this.waiting.length >= this.maxWaiting) {
        this.onRefused?.();
        throw new AppException(ErrorCode.SERVICE_UNAVAILABLE, this.busyMessage, undefined, { 'Retry-After': '2' });
      }
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      // Hand the permit straight to the next waiter, or give it back.
      if (next) next();
      else this.available++;
    }
  }
}
