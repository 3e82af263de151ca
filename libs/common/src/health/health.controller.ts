import { Controller, Get, Header } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Public } from '../auth/auth-scheme.decorator.js';
import { ErrorCode } from '../errors/error-code.enum.js';
import { ApiEnvelope, ApiErrors } from '../openapi/envelope.schemas.js';
import { HealthStatusDto } from './health.dto.js';
import { HealthService } from './health.service.js';
import { WithoutDatabase } from '../http/without-database.js';

@ApiTags('Status')
@Controller('api/v1/status')
export class HealthController {
  constructor(private readonly health: HealthService) {}

  @Get()
  @Public()
  @WithoutDatabase()
  @Header('Cache-Control', 'no-store')
  @ApiOperation({ summary: 'Health of the service and its database', operationId: 'getStatus' })
  @ApiEnvelope(HealthStatusDto)
  @ApiErrors(ErrorCode.SERVICE_DEGRADED)
  status(): Promise<HealthStatusDto> {
    return this.health.status();
  }
}
