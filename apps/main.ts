import 'reflect-metadata';
import { loadSettingsOrExit, runServices } from '#libs/common';
import { createFeedbackExportApp } from './feedback-export/src/feedback-export.app.js';
import { loadBillingConfig } from './todo-api/src/billing/billing.config.js';
import { createTodoApiApp } from './todo-api/src/todo-api.app.js';

// `npm start`: both services in one process, sharing one database (embedded unless DATABASE_URL is set).
const billing = loadSettingsOrExit(() => loadBillingConfig());
await runServices([
  { name: 'todo-api', port: (config) => config.todoApiPort, portVariable: 'TODO_API_PORT', create: (config, databaseUrl) => createTodoApiApp({ config, billing, databaseUrl }) },
  {
    name: 'feedback-export',
    port: (config) => config.feedbackApiPort,
    portVariable: 'FEEDBACK_API_PORT',
    create: (config, databaseUrl) => createFeedbackExportApp({ config, databaseUrl }),
  },
]);
