import { DynamicModule, Module } from '@nestjs/common';
import { TypeOrmModule, getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { AppConfig } from '#libs/config';
import { dataSourceOptions } from './data-source-options.js';
import { Database } from './database.js';
import { DatabaseFlavour } from './database-flavour.js';
import { DatabaseProbe } from './database-probe.js';
import { PreparedQueries } from './prepared-queries.js';

@Module({})
export class DatabaseModule {
  /** `url` is DATABASE_URL, or the embedded server's address started by the launcher. */
  static forRoot(config: AppConfig, url: string, applicationName: string): DynamicModule {
    return {
      module: DatabaseModule,
      global: true,
      providers: [
        { provide: DatabaseFlavour, useFactory: (dataSource: DataSource) => DatabaseFlavour.forDataSource(dataSource), inject: [getDataSourceToken()] },
        {
          provide: PreparedQueries,
          useFactory: (dataSource: DataSource, flavour: DatabaseFlavour) => PreparedQueries.forDataSource(dataSource, flavour),
          inject: [getDataSourceToken(), DatabaseFlavour],
        },
        { provide: Database, useFactory: (dataSource: DataSource) => new Database(dataSource), inject: [getDataSourceToken()] },
        { provide: DatabaseProbe, useFactory: (dataSource: DataSource) => new DatabaseProbe(dataSource), inject: [getDataSourceToken()] },
      ],
      exports: [Database, DatabaseFlavour, DatabaseProbe, PreparedQueries],
      imports: [
        TypeOrmModule.forRoot({
          ...dataSourceOptions({ url, poolSize: config.dbPoolSize, applicationName, queryTimeoutMs: config.dbQueryTimeoutMs }),
          // Keep retrying at start for a short while (a DB container may still be booting): DB_CONNECT_ATTEMPTS, 1 s apart.
          retryAttempts: config.dbConnectAttempts,
          retryDelay: 1000,
        }),
      ],
    };
  }
}
