import type { NestExpressApplication } from '@nestjs/platform-express';
import { createHttpApp } from '#libs/common';
import { FeedbackExportModule, type FeedbackExportOptions } from './feedback-export.module.js';

export function createFeedbackExportApp(options: FeedbackExportOptions): Promise<NestExpressApplication> {
  return createHttpApp(FeedbackExportModule.forRoot(options), options.config, {
    publicBaseUrl: options.config.feedbackPublicBaseUrl,
    openApi: {
      title: 'Feedback Export API',
      description:
        'Site feedback export by cursor polling, triage, question batches with share links, owner site and token management, and an MCP server. ' +
        'Every success is `{success: true, data}`; every error is `{success: false, error: {code, message, details?}}`.',
    },
  });
}
