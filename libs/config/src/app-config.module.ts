import { DynamicModule, Global, Module } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import type { AppConfig } from './app-config.js';

/** Injection token of the validated configuration object. */
export const APP_CONFIG = Symbol('APP_CONFIG');

/**
 * Provides the configuration validated by loadConfig(). Taking the object rather than
 * reading process.env here lets tests run several differently configured instances in one process.
 */
@Global()
@Module({})
export class AppConfigModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: AppConfigModule,
      imports: [ConfigModule.forRoot({ ignoreEnvFile: true, ignoreEnvVars: true, load: [() => ({ app: config })] })],
      providers: [{ provide: APP_CONFIG, useValue: config }],
      exports: [APP_CONFIG],
    };
  }
}
