import { AppException } from '../errors/app.exception.js';
import { ErrorCode } from '../errors/error-code.enum.js';

/** One queue of a PrioritySemaphore: how many may wait in it, and what a refusal says. */
export interface SemaphoreLane {
  maxWaiting: number;
  busyMessage?: string;
  /** Told of each task refused because this lane's queue was full (a metric). */
  onRefused?: () => void;
}

/**
 * Runs at most `permits` tasks at once, shared by several lanes, each with its own bounded
 * queue. A freed permit goes to the first lane (in the order given) that has a waiter, so a
 * flood in a later lane can fill only its own queue and never delays an earlier lane by more
 * than the tasks already running. Beyond a lane's queue a task is refused with 503
 * SERVICE_UNAVAILABLE (Retry-After) instead of queueing without bound.
 */
export class PrioritySemaphore<Lane extends string> {
  private readonly waiting: Record<Lane, Array<() => void>>;
  private readonly order: Lane[];
  private available: number;

  constructor(
    private readonly permits: number,
    private readonly lanes: Record<Lane, SemaphoreLane>,
  ) {
    this.available = permits;
    this.order = Object.keys(lanes) as Lane[];
    this.waiting = Object.fromEntries(this.order.map((lane) => [lane, []])) as unknown as Record<Lane, Array<() => void>>;
  }

  get active(): number {
    return this.permits - this.available;
  }

  /** Tasks waiting in `lane`, or in every lane. */
  queued(lane?: Lane): number {
    return lane ? this.waiting[lane].length : this.order.reduce((sum, name) => sum + this.waiting[name].length, 0);
  }

  async run<T>(lane: Lane, task: () => Promise<T>): Promise<T> {
    if (this.available > 0) {
      this.available--;
    } else {
      const { maxWaiting, busyMessage = 'The service is busy; retry shortly', onRefused } = this.lanes[lane];
      if (this.waiting[lane].length >= maxWaiting) {
        onRefused?.();
        throw new AppException(ErrorCode.SERVICE_UNAVAILABLE, busyMessage, undefined, { 'Retry-After': '2' });
      }
      await new Promise<void>((resolve) => this.waiting[lane].push(resolve));
    }
    try {
      return await task();
    } finally {
      const next = this.order.map((name) => this.waiting[name]).find((queue) => queue.length > 0)?.shift();
      // Hand the permit straight to the first waiter of the first lane that has one, or give it back.
      if (next) next();
      else this.available++;
    }
  }
}

/** A PrioritySemaphore with one lane: at most `permits` at once, `maxWaiting` more in order. */
export class Semaphore {
  private readonly lanes: PrioritySemaphore<'tasks'>;

  constructor(permits: number, maxWaiting: number, busyMessage?: string, onRefused?: () => void) {
    this.lanes = new PrioritySemaphore(permits, { tasks: { maxWaiting, busyMessage, onRefused } });
  }

  get active(): number {
    return this.lanes.active;
  }

  get queued(): number {
    return this.lanes.queued();
  }

  run<T>(task: () => Promise<T>): Promise<T> {
    return this.lanes.run('tasks', task);
  }
}
