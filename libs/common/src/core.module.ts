import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_PIPE } from '@nestjs/core';
import type { DestinationStream } from 'pino';
import { AppConfigModule, type AppConfig } from '#libs/config';
import { DatabaseModule } from '#libs/database';
import { AppTracing } from '#libs/tracing';
import { AUTH_SCHEME_GUARDS, AuthSchemeGuard, type AuthSchemeGuards } from './auth/auth-scheme.guard.js';
import { HealthModule } from './health/health.module.js';
import { AllExceptionsFilter } from './http/all-exceptions.filter.js';
import { BodyMediaTypeGuard } from './http/body-media-type.guard.js';
import { createValidationPipe } from './http/validation.js';
import { createRequestLogging, REQUEST_LOGGING, type RequestLoggingOptions } from './logging/request-logging.js';
import { MetricsTokenGuard } from './metrics/metrics-token.guard.js';
import { ObservabilityModule } from './observability.module.js';
import { RateLimitModule } from './rate-limit/rate-limit.module.js';

export interface CoreModuleOptions {
  config: AppConfig;
  /** DATABASE_URL, or the embedded server's address. */
  databaseUrl: string;
  service: string;
  /** The credential schemes this app serves and the guard that checks each. */
  authSchemes: AuthSchemeGuards;
  /** The app's routes the access log must treat specially (credentials in the path). */
  requestLogging?: RequestLoggingOptions;
  /** Tests capture logs here to check that no secret is ever logged. */
  logDestination?: DestinationStream;
}

/**
 * What both apps share: configuration, logs, database, rate-limit store, health, metrics and
 * shutdown, and the global filter / validation / deny-by-default auth guard (the success envelope is
 * written by createHttpApp's adapter).
 */
@Module({})
export class CoreModule {
  static forRoot(options: CoreModuleOptions): DynamicModule {
    return {
      module: CoreModule,
      imports: [
        AppConfigModule.forRoot(options.config),
        DatabaseModule.forRoot(options.config, options.databaseUrl, options.service),
        ObservabilityModule,
        RateLimitModule,
        HealthModule.forService(options.service),
      ],
      providers: [
        { provide: AppTracing, useFactory: () => AppTracing.create(options.config.tracing, options.service) },
        { provide: REQUEST_LOGGING, useValue: createRequestLogging(options.config, options.service, options.logDestination, options.requestLogging) },
        { provide: APP_FILTER, useClass: AllExceptionsFilter },
        { provide: APP_PIPE, useFactory: createValidationPipe },
        // Every app serves GET /metrics to the operators' scraper.
        { provide: AUTH_SCHEME_GUARDS, useValue: { ...options.authSchemes, 'metrics-token': MetricsTokenGuard } },
        // First: a body of a type the route does not take is 415 whoever sends it (like 413).
        { provide: APP_GUARD, useClass: BodyMediaTypeGuard },
        { provide: APP_GUARD, useClass: AuthSchemeGuard },
      ],
    };
  }
}
