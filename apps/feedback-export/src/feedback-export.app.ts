import { join } from 'node:path';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { createHttpApp, displayPath, loadSettingsOrExit, type ServiceStarter } from '#libs/common';
import type { AppConfig } from '#libs/config';
import { loadQuotaConfig } from './sites/quota.config.js';
import { TOKEN_AUTH_SECURITY } from './token-auth/token-auth.schemes.js';
import { WIDGET_OPEN_CORS_PATHS } from './widget/widget.controller.js';
import { FeedbackExportModule, type FeedbackExportOptions } from './feedback-export.module.js';

/** Optional features left unconfigured, said once at start. */
function unsetFeatures(config: AppConfig): string[] {
  return config.smtpUrl ? [] : [`SMTP_URL is unset: answered-batch notifications go to the log and ${displayPath(join(config.dataDir, 'outbox'))}/`];
}

export function createFeedbackExportApp(options: FeedbackExportOptions): Promise<NestExpressApplication> {
  return createHttpApp(FeedbackExportModule.forRoot(options), options.config, {
    publicBaseUrl: options.config.feedbackPublicBaseUrl,
    openApi: {
      title: 'Feedback Export API',
      description:
        'Site feedback export by cursor polling, triage, question batches with share links, owner site and token management, and an MCP server. ' +
        'Every success is `{success: true, data}`; every error is `{success: false, error: {code, message, details?}}`.',
      tags: [
        { name: 'Sites', description: 'The owner’s sites and their tokens (JWT of the shared account)' },
        { name: 'Feedback export', description: 'Feedback read by cursor polling and triaged with site or portfolio tokens' },
        { name: 'Widget', description: 'The embeddable widget script and the public endpoint it posts to' },
        { name: 'Question batches', description: 'Questions sent to a client through a share link, and the answers' },
        { name: 'Question share page', description: 'The recipient’s page and its calls; the share token in the path is the credential' },
        { name: 'Dashboard', description: 'The owner dashboard page and the owner-side feedback routes it uses' },
        { name: 'MCP', description: 'Feedback and question batches for AI agents, with the same tokens and scopes' },
        { name: 'Webhooks', description: 'A site’s endpoints that receive its feedback and question-batch events, signed (Standard Webhooks): the write token or the owner’s JWT' },
      ],
      security: TOKEN_AUTH_SECURITY,
    },
    openCorsPaths: WIDGET_OPEN_CORS_PATHS,
    index: { service: 'feedback-export', pages: { Dashboard: '/dashboard', 'Widget script': '/widget.js' }, unsetFeatures: unsetFeatures(options.config) },
  });
}

/** feedback-export as runServices starts it, alone (`npm run start:feedback`, its container) or beside todo-api (`npm start`). */
export function feedbackExportService(): ServiceStarter {
  const quotas = loadSettingsOrExit(() => loadQuotaConfig(), 'feedback-export');
  return {
    name: 'feedback-export',
    port: (config) => config.feedbackApiPort,
    portVariable: 'FEEDBACK_API_PORT',
    create: (config, databaseUrl) => createFeedbackExportApp({ config, quotas, databaseUrl }),
  };
}
