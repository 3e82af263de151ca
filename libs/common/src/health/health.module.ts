import { DynamicModule, Module } from '@nestjs/common';
import { ObservabilityModule } from '../observability.module.js';
import { HealthController } from './health.controller.js';
import { HealthService, SERVICE_NAME } from './health.service.js';
import { ProbesController } from './probes.controller.js';

@Module({})
export class HealthModule {
  static forService(serviceName: string): DynamicModule {
    return {
      module: HealthModule,
      imports: [ObservabilityModule],
      controllers: [HealthController, ProbesController],
      providers: [HealthService, { provide: SERVICE_NAME, useValue: serviceName }],
    };
  }
}
