import { Injectable } from '@nestjs/common';
import { settleWithin } from '../concurrency/settle-within.js';

/** How long one check may take: a hung dependency must not hang the probe. */
export const DEPENDENCY_CHECK_TIMEOUT_MS = 1000;

/** The name of the database in readiness checks, outage logs and metrics. */
export const DATABASE_DEPENDENCY = 'database';

export type CheckResult = 'ok' | 'error';

/** Something this replica needs to serve traffic, and how to tell whether it answers. */
export interface DependencyCheck {
  /** Short lowercase name, shown in /readyz and in outage log lines (`database`, `redis`). */
  name: string;
  /** Resolves when the dependency answers; rejects when it does not. */
  check(): Promise<unknown>;
  /**
   * Whether this replica stops taking traffic while the check fails (default true). False for a
   * dependency the service degrades around and every replica shares (Redis counters fail open
   * or closed per route): pulling every replica out of the gateway at once would turn a partial
   * outage into a whole one. It still shows in /readyz's checks and in `dependency_up`.
   */
  affectsReadiness?: boolean;
  /** What the owner already knows between checks (a client's connection state), for `dependency_up`. */
  isDown?(): boolean;
}

/**
 * The checks behind GET /readyz, and the probes that tell DependencyOutages when a dependency
 * is back. A module that brings a new dependency adds its check once at start (a Redis store:
 * `checks.add({ name: 'redis', check: () => client.ping(), affectsReadiness: false })`); readiness
 * and `dependency_up` then cover it with no other change.
 */
@Injectable()
export class DependencyChecks {
  private readonly checks = new Map<string, DependencyCheck>();

  add(check: DependencyCheck): void {
    if (this.checks.has(check.name)) throw new Error(`Dependency check ${check.name} is registered twice`);
    this.checks.set(check.name, check);
  }

  names(): string[] {
    return [...this.checks.keys()];
  }

  /** Whether a failing `name` makes the replica unready; true for anything not registered (the migrations check). */
  affectsReadiness(name: string): boolean {
    return this.checks.get(name)?.affectsReadiness !== false;
  }

  /** Known to be down by its owner, without running the check. */
  knownDown(name: string): boolean {
    return this.checks.get(name)?.isDown?.() === true;
  }

  /** One check, bounded by DEPENDENCY_CHECK_TIMEOUT_MS; unknown names are 'error'. */
  async run(name: string): Promise<CheckResult> {
    const check = this.checks.get(name);
    if (!check) return 'error';
    return (await settleWithin(() => check.check(), DEPENDENCY_CHECK_TIMEOUT_MS)) === 'done' ? 'ok' : 'error';
  }

  /** Every check, in parallel. */
  async runAll(): Promise<Record<string, CheckResult>> {
    const names = this.names();
    const results = await Promise.all(names.map((name) => this.run(name)));
    return Object.fromEntries(names.map((name, index) => [name, results[index]]));
  }
}
