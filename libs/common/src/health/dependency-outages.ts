import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import type { Counter } from 'prom-client';
import { AppMetrics } from '../metrics/app-metrics.js';
import { DependencyChecks } from './dependency-checks.js';
import { DependencyHealth } from './dependency-health.js';

/** While a dependency is down, how often its check runs to notice that it is back. */
const RECOVERY_PROBE_INTERVAL_MS = 1000;
/** A dependency with a circuit breaker (`breaker`) is probed this often while down, each probe bounded by as much. */
export const BREAKER_PROBE_INTERVAL_MS = 250;
export const BREAKER_PROBE_TIMEOUT_MS = 500;

interface Outage {
  since: number;
  refused: number;
  timer?: NodeJS.Timeout;
}

function reasonOf(error: unknown): string | undefined {
  const message = (error as { message?: unknown })?.message;
  return typeof message === 'string' ? message : undefined;
}

/**
 * Outages of a dependency (the database, later Redis) as events rather than errors: requests
 * refused because it is down answer 503 and are counted here, without a log line each; the
 * log gets one warning when the outage starts and one when the dependency answers again,
 * with how many requests were refused meanwhile.
 *
 * A dependency registered with `breaker` (the database) has its outage driven by one
 * DependencyHealth: the outage marks it down, its calls fail fast while it is not up (the
 * owner's gate asks `isDown`), a background probe every BREAKER_PROBE_INTERVAL_MS ends the
 * outage on its first success. Whatever has its own reconnect loop (the LISTEN client)
 * subscribes with `onRecovered` and reconnects at that moment.
 */
@Injectable()
export class DependencyOutages implements OnModuleDestroy {
  private readonly logger = new Logger('Dependencies');
  private readonly outages = new Map<string, Outage>();
  private readonly confirming = new Set<string>();
  private readonly refusedRequests: Counter<'dependency'>;
  private readonly lockTimeouts: Counter<'dependency'>;
  private stopped = false;
  private readonly breakers = new Map<string, DependencyHealth>();
  private readonly recoveryListeners: ((dependency: string) => void)[] = [];

  constructor(
    private readonly checks: DependencyChecks,
    metrics: AppMetrics,
  ) {
    this.refusedRequests = metrics.counter({
      name: 'dependency_refused_requests_total',
      help: 'Requests answered 503 because a dependency did not answer, by dependency',
      labelNames: ['dependency'],
    });
    this.lockTimeouts = metrics.counter({
      name: 'dependency_lock_timeouts_total',
      help: 'Requests answered 503 because the dependency cancelled a statement that waited too long (a lock wait: statement or lock timeout), by dependency; not an outage',
      labelNames: ['dependency'],
    });
    const outages = this.outages;
    metrics.gauge({
      name: 'dependency_up',
      help: '0 while this replica sees the dependency as down (from the first refused request until its check passes again), else 1',
      labelNames: ['dependency'],
      collect() {
        for (const name of checks.names()) this.set({ dependency: name }, outages.has(name) || checks.knownDown(name) ? 0 : 1);
      },
    });
  }

  isDown(dependency: string): boolean {
    return this.outages.has(dependency);
  }

  /**
   * A circuit breaker for `dependency`: from the first refused request (or a confirmed suspicion)
   * its owner fails fast (`isDown` is true) and only `probe` touches it, every
   * BREAKER_PROBE_INTERVAL_MS and bounded by BREAKER_PROBE_TIMEOUT_MS; the first probe that
   * passes ends the outage. `probe` must not go through the gate (its own connection).
   */
  breaker(dependency: string, probe: (timeoutMs: number) => Promise<unknown>): void {
    if (this.breakers.has(dependency)) return;
    const health = new DependencyHealth({
      name: dependency,
      probe: () => probe(BREAKER_PROBE_TIMEOUT_MS),
      probeTimeoutMs: BREAKER_PROBE_TIMEOUT_MS,
      probeIntervalMs: BREAKER_PROBE_INTERVAL_MS,
      onUp: () => {
        const outage = this.outages.get(dependency);
        if (outage) this.end(dependency, outage);
      },
    });
    this.breakers.set(dependency, health);
    if (!this.stopped) health.start();
  }

  /** `listener` runs (synchronously) each time an outage of a dependency ends, with its name. */
  onRecovered(listener: (dependency: string) => void): void {
    this.recoveryListeners.push(listener);
  }

  /** A request was refused (503) because `dependency` did not answer. */
  refused(dependency: string, error?: unknown): void {
    this.refusedRequests.inc({ dependency });
    const outage = this.outages.get(dependency) ?? this.begin(dependency, error);
    outage.refused++;
  }

  /**
   * A request was refused (503) because `dependency` cancelled its statement after a wait
   * (a lock held by another transaction): counted, but the dependency answered, so no outage
   * begins (no warning, dependency_up unchanged).
   */
  lockTimedOut(dependency: string): void {
    this.lockTimeouts.inc({ dependency });
  }

  /**
   * A connection to `dependency` was lost outside any request (an idle pooled connection, a
   * listener): an outage only if its check fails too, so a single dropped connection stays quiet.
   */
  suspect(dependency: string, error?: unknown): void {
    if (this.stopped || this.outages.has(dependency) || this.confirming.has(dependency)) return;
    this.confirming.add(dependency);
    void this.checks.run(dependency).then((result) => {
      this.confirming.delete(dependency);
      if (result === 'error' && !this.stopped && !this.outages.has(dependency)) this.begin(dependency, error);
    });
  }

  onModuleDestroy(): void {
    this.stopped = true;
    for (const outage of this.outages.values()) clearTimeout(outage.timer);
    for (const health of this.breakers.values()) health.stop();
  }

  private begin(dependency: string, error: unknown): Outage {
    const outage: Outage = { since: Date.now(), refused: 0 };
    this.outages.set(dependency, outage);
    if (!this.stopped) {
      this.logger.warn({ dependency, reason: reasonOf(error) }, `${dependency} unavailable: answering 503 until it is back`);
      const breaker = this.breakers.get(dependency);
      if (breaker) breaker.markDown(error);
      else this.probeLater(dependency, outage);
    }
    return outage;
  }

  private end(dependency: string, outage: Outage): void {
    this.outages.delete(dependency);
    this.logger.warn({ dependency, refusedRequests: outage.refused, downForMs: Date.now() - outage.since }, `${dependency} available again`);
    for (const listener of this.recoveryListeners) {
      try {
        listener(dependency);
      } catch (error) {
        this.logger.warn({ dependency, err: (error as Error).message }, 'A recovery subscriber failed');
      }
    }
  }

  private probeLater(dependency: string, outage: Outage): void {
    outage.timer = setTimeout(() => {
      void this.checks.run(dependency).then((result) => {
        if (this.stopped || this.outages.get(dependency) !== outage) return;
        if (result === 'error') {
          this.probeLater(dependency, outage);
          return;
        }
        this.end(dependency, outage);
      });
    }, RECOVERY_PROBE_INTERVAL_MS);
    outage.timer.unref();
  }
}
