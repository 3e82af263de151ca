import 'reflect-metadata';
import { runServices } from '#libs/common';
import { createFeedbackExportApp } from './feedback-export/src/feedback-export.app.js';
import { createTodoApiApp } from './todo-api/src/todo-api.app.js';

// `npm start`: both services in one process, sharing one database (embedded unless DATABASE_URL is set).
await runServices([
  { name: 'todo-api', port: (config) => config.todoApiPort, portVariable: 'TODO_API_PORT', create: (config, databaseUrl) => createTodoApiApp({ config, databaseUrl }) },
  {
    name: 'feedback-export',
    port: (config) => config.feedbackApiPort,
    portVariable: 'FEEDBACK_API_PORT',
    create: (config, databaseUrl) => createFeedbackExportApp({ config, databaseUrl }),
  },
]);
