import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

export class HealthChecksDto {
  @ApiProperty({ enum: ['ok', 'error'] })
  db: 'ok' | 'error';
}

export class HealthStatusDto {
  @ApiProperty({ enum: ['ok', 'degraded'] })
  status: 'ok' | 'degraded';

  @ApiProperty({ example: 'todo-api' })
  service: string;

  @ApiPropertyOptional({ example: '1.0.0' })
  version?: string;

  @ApiPropertyOptional({ example: 'production' })
  environment?: string;

  @ApiProperty({ format: 'date-time' })
  timestamp: string;

  @ApiProperty({ type: HealthChecksDto })
  checks: HealthChecksDto;
}
