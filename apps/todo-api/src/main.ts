import 'reflect-metadata';
import { loadSettingsOrExit, runServices } from '#libs/common';
import { loadBillingConfig } from './billing/billing.config.js';
import { createTodoApiApp } from './todo-api.app.js';

const billing = loadSettingsOrExit(() => loadBillingConfig());
await runServices([
  { name: 'todo-api', port: (config) => config.todoApiPort, portVariable: 'TODO_API_PORT', create: (config, databaseUrl) => createTodoApiApp({ config, billing, databaseUrl }) },
]);
