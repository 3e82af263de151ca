import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { AppException } from '../errors/app.exception.js';
import { ErrorCode } from '../errors/error-code.enum.js';
import { HealthStatusDto } from './health.dto.js';

export const SERVICE_NAME = Symbol('SERVICE_NAME');
export const SERVICE_VERSION = '1.0.0';

/** How long the probe waits for the database: a hung database must not hang the probe. */
const DB_CHECK_TIMEOUT_MS = 1000;

@Injectable()
export class HealthService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(SERVICE_NAME) private readonly serviceName: string,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  private async checkDatabase(): Promise<'ok' | 'error'> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'error'>((resolve) => {
      timer = setTimeout(() => resolve('error'), DB_CHECK_TIMEOUT_MS);
    });
    const query = this.dataSource
      .query('SELECT 1')
      .then(() => 'ok' as const)
      .catch(() => 'error' as const);
    try {
      return await Promise.race([query, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** The health data; throws SERVICE_DEGRADED (503) carrying the same data when a check fails. */
  async status(): Promise<HealthStatusDto> {
    const db = await this.checkDatabase();
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
}
