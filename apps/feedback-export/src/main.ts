import 'reflect-metadata';
import { runServices } from '#libs/common';
import { createFeedbackExportApp } from './feedback-export.app.js';

await runServices([
  {
    name: 'feedback-export',
    port: (config) => config.feedbackApiPort,
    portVariable: 'FEEDBACK_API_PORT',
    create: (config, databaseUrl) => createFeedbackExportApp({ config, databaseUrl }),
  },
]);
