import { DynamicModule, Module } from '@nestjs/common';
import type { DestinationStream } from 'pino';
import { AccountsCoreModule, AdminKeyGuard, ApiKeyAuthGuard, JwtAuthGuard } from '#libs/accounts';
import { AuthSchemeGuards, CoreModule } from '#libs/common';
import type { AppConfig } from '#libs/config';

export interface TodoApiOptions {
  config: AppConfig;
  databaseUrl: string;
  logDestination?: DestinationStream;
}

/** The credential schemes todo-api serves, each checked by its own guard. */
const TODO_API_AUTH_SCHEMES: AuthSchemeGuards = {
  jwt: JwtAuthGuard,
  'api-key': ApiKeyAuthGuard,
  'admin-key': AdminKeyGuard,
};

@Module({})
export class TodoApiModule {
  static forRoot(options: TodoApiOptions): DynamicModule {
    return {
      module: TodoApiModule,
      imports: [
        CoreModule.forRoot({ config: options.config, databaseUrl: options.databaseUrl, service: 'todo-api', logDestination: options.logDestination, authSchemes: TODO_API_AUTH_SCHEMES }),
        AccountsCoreModule,
      ],
    };
  }
}
