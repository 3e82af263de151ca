import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { DatabaseProbe } from '#libs/database';
import { AppException } from '../errors/app.exception.js';
import { ErrorCode } from '../errors/error-code.enum.js';
import { GracefulShutdown } from '../lifecycle/graceful-shutdown.service.js';
import { DATABASE_DEPENDENCY, DependencyChecks, type CheckResult } from './dependency-checks.service.js';
import { DependencyOutages } from './dependency-outages.service.js';
import { HealthStatusDto, LivenessDto, ReadinessDto } from './health.dto.js';

export const SERVICE_NAME = Symbol('SERVICE_NAME');
const SERVICE_VERSION = '1.0.0';

@Injectable()
export class HealthService {
  /** Migrations never become unapplied: once every one is seen applied, the check stops asking. */
  private migrationsApplied = false;

  constructor(
    private readonly database: DatabaseProbe,
    @Inject(SERVICE_NAME) private readonly serviceName: string,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly checks: DependencyChecks,
    private readonly shutdown: GracefulShutdown,
    outages: DependencyOutages,
  ) {
    checks.add({ name: DATABASE_DEPENDENCY, check: () => this.database.ping() });
    // The database's circuit breaker: once an outage is known, every statement fails fast (503 at
    // once, not after a wait for a pool slot) until a probe on a connection of its own gets through.
    outages.breaker(DATABASE_DEPENDENCY, (timeoutMs) => this.database.pingOwnConnection(timeoutMs));
    this.database.failFastWhile(() => outages.isDown(DATABASE_DEPENDENCY));
  }

  /** The health data of /api/v1/status; throws SERVICE_DEGRADED (503) carrying the same data when a check fails. */
  async status(): Promise<HealthStatusDto> {
    const db = await this.checks.run(DATABASE_DEPENDENCY);
    const health: HealthStatusDto = {
      status: db === 'ok' ? 'ok' : 'degraded',
      service: this.serviceName,
      version: SERVICE_VERSION,
      environment: this.config.nodeEnv,
      timestamp: new Date().toISOString(),
      checks: { db },
    };
    if (health.status !== 'ok') throw new AppException(ErrorCode.SERVICE_DEGRADED, 'A health check failed', health);
    return health;
  }

  /** The process answers: nothing else is checked, so a database outage never gets a healthy process restarted. */
  liveness(): LivenessDto {
    return { status: 'alive', uptimeSeconds: Math.floor(process.uptime()) };
  }

  /** Whether this replica should get traffic; throws SERVICE_DEGRADED (503) with the same data when not. */
  async readiness(): Promise<ReadinessDto> {
    const draining = this.shutdown.isDraining;
    const checks: Record<string, CheckResult> = draining ? {} : { ...(await this.checks.runAll()), migrations: await this.checkMigrations() };
    const ready = !draining && Object.entries(checks).every(([name, result]) => result === 'ok' || !this.checks.affectsReadiness(name));
    const readiness: ReadinessDto = { status: ready ? 'ready' : 'not_ready', draining, checks };
    if (!ready) throw new AppException(ErrorCode.SERVICE_DEGRADED, draining ? 'The service is shutting down' : 'A readiness check failed', readiness);
    return readiness;
  }

  private async checkMigrations(): Promise<CheckResult> {
    if (this.migrationsApplied) return 'ok';
    try {
      this.migrationsApplied = (await this.database.pendingMigrations()).length === 0;
      return this.migrationsApplied ? 'ok' : 'error';
    } catch {
      return 'error';
    }
  }
}
