import 'reflect-metadata';
import { runServices } from '#libs/common';
import { createFeedbackExportApp } from './feedback-export.app.js';

await runServices([
  {
    name: 'feedback-export',
    port: (config) => config.feedbackApiPort,
    create: (config, databaseUrl) => createFeedbackExportApp({ config, databaseUrl }),
  },
]);
