import { DynamicModule, Module } from '@nestjs/common';
import type { DestinationStream } from 'pino';
import { AccountsCoreModule, JwtAuthGuard } from '#libs/accounts';
import { AuthSchemeGuards, CoreModule } from '#libs/common';
import type { AppConfig } from '#libs/config';

export interface FeedbackExportOptions {
  config: AppConfig;
  databaseUrl: string;
  logDestination?: DestinationStream;
}

/** The credential schemes feedback-export serves, each checked by its own guard. */
const FEEDBACK_AUTH_SCHEMES: AuthSchemeGuards = {
  jwt: JwtAuthGuard,
};

@Module({})
export class FeedbackExportModule {
  static forRoot(options: FeedbackExportOptions): DynamicModule {
    return {
      module: FeedbackExportModule,
      imports: [
        CoreModule.forRoot({ config: options.config, databaseUrl: options.databaseUrl, service: 'feedback-export', logDestination: options.logDestination, authSchemes: FEEDBACK_AUTH_SCHEMES }),
        AccountsCoreModule,
      ],
    };
  }
}
