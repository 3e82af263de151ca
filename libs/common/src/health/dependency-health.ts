import { settleWithin } from '../concurrency/settle-within.js';

/**
 * The health of one dependency as a small state machine, a circuit breaker with a background
 * half-open probe:
 *
 *   up ──markDown(error)──▶ down ──every probeIntervalMs──▶ probing ──probe ok──▶ up
 *                            ▲                                 │
 *                            └───────────probe failed──────────┘
 *
 * - `markDown` is called by the owner on a failure that means "unreachable" (refused, reset,
 *   connect or command timeout); a failure that only refuses one piece of work is not one.
 * - While not up, callers fail fast (`isUp` is false): nothing waits for a pool slot or a
 *   command timeout. The probe is the only thing that touches the dependency.
 * - Only a successful probe marks it up, never a client library's own reconnect event: a
 *   stalled-then-resumed server that never drops its connection is seen back all the same.
 * - The probe runs on an unref'd timer only while the dependency is down, between `start()`
 *   and `stop()` (the owner's module lifecycle). Each probe is bounded by `probeTimeoutMs`.
 *
 * Used for Redis (the rate-limit store) and for every outage DependencyOutages tracks (the database).
 */
export type DependencyState = 'up' | 'down' | 'probing';

export interface DependencyHealthOptions {
  /** Short name (`redis`, `database`). */
  name: string;
  /** Resolves when the dependency answers (a PING); may replace a stalled connection first. */
  probe(): Promise<unknown>;
  /** How long one probe may take (default 250 ms). */
  probeTimeoutMs?: number;
  /** Pause between the end of a failed probe and the next one (default 250 ms). */
  probeIntervalMs?: number;
  /** The outage starts (once per outage): log it. */
  onDown?(error: unknown): void;
  /** The first probe passed after an outage (once per outage): log it. */
  onUp?(outage: { downForMs: number; probes: number }): void;
}

export class DependencyHealth {
  readonly name: string;
  private current: DependencyState = 'up';
  private since = 0;
  private probes = 0;
  private timer?: NodeJS.Timeout;
  private running = false;
  private readonly probeTimeoutMs: number;
  private readonly probeIntervalMs: number;

  constructor(private readonly options: DependencyHealthOptions) {
    this.name = options.name;
    this.probeTimeoutMs = options.probeTimeoutMs ?? 250;
    this.probeIntervalMs = options.probeIntervalMs ?? 250;
  }

  get state(): DependencyState {
    return this.current;
  }

  /** Calls may go to the dependency; false while down or probing (fail fast). */
  get isUp(): boolean {
    return this.current === 'up';
  }

  /** Probing allowed from now on (module init); probes at once if already down. */
  start(): void {
    if (this.running) return;
    this.running = true;
    if (this.current !== 'up') this.schedule(0);
  }

  /** No more probes (module destroy). */
  stop(): void {
    this.running = false;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** A failure that means the dependency is unreachable. Idempotent while down. */
  markDown(error: unknown): void {
    if (this.current !== 'up') return;
    this.current = 'down';
    this.since = Date.now();
    this.probes = 0;
    this.options.onDown?.(error);
    if (this.running) this.schedule(this.probeIntervalMs);
  }

  private schedule(delayMs: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.probeOnce(), delayMs);
    this.timer.unref();
  }

  private async probeOnce(): Promise<void> {
    this.timer = undefined;
    if (!this.running || this.current === 'up') return;
    this.current = 'probing';
    this.probes++;
    const ok = (await settleWithin(() => this.options.probe(), this.probeTimeoutMs)) === 'done';
    if (this.current !== 'probing') return;
    if (ok) {
      this.current = 'up';
      this.options.onUp?.({ downForMs: Date.now() - this.since, probes: this.probes });
      return;
    }
    this.current = 'down';
    if (this.running) this.schedule(this.probeIntervalMs);
  }
}
