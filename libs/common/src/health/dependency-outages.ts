import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import type { Counter } from 'prom-client';
import { AppMetrics } from '../metrics/app-metrics.js';
import { DependencyChecks } from './dependency-checks.js';

/** While a dependency is down, how often its check runs to notice that it is back. */
const RECOVERY_PROBE_INTERVAL_MS = 1000;

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
 */
@Injectable()
export class DependencyOutages implements OnModuleDestroy {
  private readonly logger = new Logger('Dependencies');
  private readonly outages = new Map<string, Outage>();
  private readonly confirming = new Set<string>();
  private readonly refusedRequests: Counter<'dependency'>;
  private readonly lockTimeouts: Counter<'dependency'>;
  private stopped = false;

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
  }

  private begin(dependency: string, error: unknown): Outage {
    const outage: Outage = { since: Date.now(), refused: 0 };
    this.outages.set(dependency, outage);
    if (!this.stopped) {
      this.logger.warn({ dependency, reason: reasonOf(error) }, `${dependency} unavailable: answering 503 until it is back`);
      this.probeLater(dependency, outage);
    }
    return outage;
  }

  private probeLater(dependency: string, outage: Outage): void {
    outage.timer = setTimeout(() => {
      void this.checks.run(dependency).then((result) => {
        if (this.stopped || this.outages.get(dependency) !== outage) return;
        if (result === 'error') {
          this.probeLater(dependency, outage);
          return;
        }
        this.outages.delete(dependency);
        this.logger.warn({ dependency, refusedRequests: outage.refused, downForMs: Date.now() - outage.since }, `${dependency} available again`);
      });
    }, RECOVERY_PROBE_INTERVAL_MS);
    outage.timer.unref();
  }
}
