import type { NestExpressApplication } from '@nestjs/platform-express';
import { createHttpApp } from '#libs/common';
import { TodoApiModule, type TodoApiOptions } from './todo-api.module.js';

export function createTodoApiApp(options: TodoApiOptions): Promise<NestExpressApplication> {
  return createHttpApp(TodoApiModule.forRoot(options), options.config, {
    publicBaseUrl: options.config.publicBaseUrl,
    openApi: {
      title: 'Todo API',
      description:
        'Accounts, sessions, billing, API keys, todos, account export and deletion, and an MCP endpoint. ' +
        'Every success is `{success: true, data}`; every error is `{success: false, error: {code, message, details?}}`.',
    },
  });
}
