import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import type { Counter } from 'prom-client';
import { AppMetrics } from '../metrics/app-metrics.js';
import { DEPENDENCY_CHECK_TIMEOUT_MS, DependencyChecks } from './dependency-checks.service.js';
import { DependencyHealth } from './dependency-health.js';

/** While a dependency without a breaker of its own is down, how often its check runs to notice that it is back. */
const RECOVERY_PROBE_INTERVAL_MS = 1000;
/** A dependency with a circuit breaker (`breaker`) is probed this often while down, each probe bounded by BREAKER_PROBE_TIMEOUT_MS. */
export const BREAKER_PROBE_INTERVAL_MS = 250;
const BREAKER_PROBE_TIMEOUT_MS = 500;

interface Outage {
  since: number;
  refused: number;
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
 * Every outage is driven by one DependencyHealth per dependency: the outage marks it down and its
 * first passing probe ends the outage. A dependency registered with `breaker` (the database) is
 * probed with its own probe every BREAKER_PROBE_INTERVAL_MS while its calls fail fast (the
 * owner's gate asks `isDown`); any other is probed with its readiness check every
 * RECOVERY_PROBE_INTERVAL_MS. Whatever has its own reconnect loop (the LISTEN client)
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
  /** Dependencies whose breaker is the readiness-check one, until `breaker` registers their own. */
  private readonly checkedOnly = new Set<string>();
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
    if (this.breakers.has(dependency) && !this.checkedOnly.has(dependency)) return;
    this.breakers.get(dependency)?.stop();
    this.checkedOnly.delete(dependency);
    const health = this.register(dependency, () => probe(BREAKER_PROBE_TIMEOUT_MS), BREAKER_PROBE_INTERVAL_MS, BREAKER_PROBE_TIMEOUT_MS);
    if (this.outages.has(dependency)) health.markDown(undefined);
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
    for (const health of this.breakers.values()) health.stop();
  }

  private begin(dependency: string, error: unknown): Outage {
    const outage: Outage = { since: Date.now(), refused: 0 };
    this.outages.set(dependency, outage);
    if (!this.stopped) {
      this.logger.warn({ dependency, reason: reasonOf(error) }, `${dependency} unavailable: answering 503 until it is back`);
      this.breakerOf(dependency).markDown(error);
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

  /** The dependency's breaker; one probing its readiness check if it has none of its own. */
  private breakerOf(dependency: string): DependencyHealth {
    const registered = this.breakers.get(dependency);
    if (registered) return registered;
    this.checkedOnly.add(dependency);
    const probe = async (): Promise<void> => {
      if ((await this.checks.run(dependency)) === 'error') throw new Error(`${dependency} check failed`);
    };
    // The check bounds itself (DEPENDENCY_CHECK_TIMEOUT_MS); the probe's own bound leaves it room.
    return this.register(dependency, probe, RECOVERY_PROBE_INTERVAL_MS, DEPENDENCY_CHECK_TIMEOUT_MS + 100);
  }

  private register(dependency: string, probe: () => Promise<unknown>, probeIntervalMs: number, probeTimeoutMs: number): DependencyHealth {
    const health = new DependencyHealth({
      name: dependency,
      probe,
      probeTimeoutMs,
      probeIntervalMs,
      onUp: () => {
        const outage = this.outages.get(dependency);
        if (outage) this.end(dependency, outage);
      },
    });
    this.breakers.set(dependency, health);
    if (!this.stopped) health.start();
    return health;
  }
}
