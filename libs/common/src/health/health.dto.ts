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

export class LivenessDto {
  @ApiProperty({ enum: ['alive'] })
  status: 'alive';

  @ApiProperty({ example: 3600, description: 'Seconds since the process started' })
  uptimeSeconds: number;
}

export class ReadinessDto {
  @ApiProperty({ enum: ['ready', 'not_ready'] })
  status: 'ready' | 'not_ready';

  @ApiProperty({ description: 'True once the replica is shutting down (SIGTERM): it finishes what it has and takes nothing new' })
  draining: boolean;

  @ApiProperty({
    description: 'Each check by name: `database`, `migrations` (every migration of this build applied), and any dependency a module adds (e.g. `redis`). Empty while draining.',
    type: 'object',
    additionalProperties: { type: 'string', enum: ['ok', 'error'] },
    example: { database: 'ok', migrations: 'ok' },
  })
  checks: Record<string, 'ok' | 'error'>;
}
