import { Controller, Get, Header } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Public } from '../auth/auth-scheme.decorator.js';
import { ErrorCode } from '../errors/error-code.enum.js';
import { ApiEnvelope, ApiErrors } from '../openapi/envelope.schemas.js';
import { LivenessDto, ReadinessDto } from './health.dto.js';
import { HealthService } from './health.service.js';
import { WithoutDatabase } from '../http/without-database.js';

/** Orchestrator probes, outside /api/v1: `/livez` (restart me?) and `/readyz` (send me traffic?). */
@ApiTags('Status')
@Controller()
export class ProbesController {
  constructor(private readonly health: HealthService) {}

  @Get('livez')
  @Public()
  @WithoutDatabase()
  @Header('Cache-Control', 'no-store')
  @ApiOperation({
    operationId: 'getLiveness',
    summary: 'Liveness probe: the process answers',
    description: 'Checks no dependency, so a database outage never gets a healthy process restarted. 200 while the process can answer at all.',
  })
  @ApiEnvelope(LivenessDto)
  @ApiErrors()
  liveness(): LivenessDto {
    return this.health.liveness();
  }

  @Get('readyz')
  @Public()
  @WithoutDatabase()
  @Header('Cache-Control', 'no-store')
  @ApiOperation({
    operationId: 'getReadiness',
    summary: 'Readiness probe: this replica should get traffic',
    description:
      'The database answers, every migration of this build is applied, and the ' +
      'replica is not shutting down. Otherwise 503 SERVICE_DEGRADED with the same data in `error.details` and `Retry-After`. ' +
      'Each check waits at most 1 s. With REDIS_URL, `checks.redis` shows whether the rate-limit store answers; it does not make ' +
      'the replica unready (every replica shares it, and routes fail open or closed around it).',
  })
  @ApiEnvelope(ReadinessDto)
  @ApiErrors(ErrorCode.SERVICE_DEGRADED)
  readiness(): Promise<ReadinessDto> {
    return this.health.readiness();
  }
}
