import { Module } from '@nestjs/common';
import { DependencyChecks } from './health/dependency-checks.service.js';
import { DependencyOutages } from './health/dependency-outages.service.js';
import { GracefulShutdown } from './lifecycle/graceful-shutdown.service.js';
import { AppMetrics } from './metrics/app-metrics.js';
import { OverloadGate } from './http/overload-gate.service.js';
import { MetricsTokenGuard } from './metrics/metrics-token.guard.js';
import { MetricsController } from './metrics/metrics.controller.js';
import { DatabasePoolMetrics } from './metrics/database-pool.metrics.js';

/**
 * What operators see of one app: its metrics registry (GET /metrics), the dependency checks
 * behind readiness, outage events, the graceful drain and admission control. A module that counts into
 * AppMetrics or registers a drain step imports it; one instance per app.
 */
@Module({
  controllers: [MetricsController],
  providers: [{ provide: AppMetrics, useFactory: () => new AppMetrics() }, DependencyChecks, DependencyOutages, GracefulShutdown, MetricsTokenGuard, DatabasePoolMetrics, OverloadGate],
  exports: [AppMetrics, DependencyChecks, DependencyOutages, GracefulShutdown, OverloadGate],
})
export class ObservabilityModule {}
