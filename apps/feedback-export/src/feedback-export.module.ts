import { DynamicModule, Module } from '@nestjs/common';
import type { DestinationStream } from 'pino';
import { AccountsCoreModule, JwtAuthGuard } from '#libs/identity';
import { AuthSchemeGuards, CoreModule, PagesModule } from '#libs/common';
import type { AppConfig } from '#libs/config';
import { PortfolioTokenGuard } from './token-auth/portfolio-token.guard.js';
import { AnyFeedbackTokenGuard, SiteReadTokenGuard, SiteWriteTokenGuard } from './token-auth/site-token.guard.js';
import { SiteWriteTokenOrJwtGuard } from './token-auth/site-write-or-jwt.guard.js';
import { TokenAuthModule } from './token-auth/token-auth.module.js';
import { SitesModule } from './sites/sites.module.js';
import { QuotaConfigModule } from './sites/quota-config.module.js';
import type { QuotaConfig } from './sites/quota.config.js';
import { SHARE_TOKEN_PATH_PREFIXES } from './questions/share/share.controller.js';
import { ShareModule } from './questions/share/share.module.js';
import { FeedbackModule } from './feedback/feedback.module.js';
import { WidgetModule } from './widget/widget.module.js';
import { QuestionsModule } from './questions/questions.module.js';
import { DashboardModule } from './dashboard/dashboard.module.js';
import { FeedbackMcpModule } from './mcp/mcp.module.js';
import { FeedbackMcpAuthGuard } from './mcp/feedback-mcp-auth.guard.js';
import { McpAuthModule } from './mcp/mcp-auth.module.js';
import { SiteWebhooksModule } from './webhooks/site-webhooks.module.js';

export interface FeedbackExportOptions {
  config: AppConfig;
  databaseUrl: string;
  /** The account's quotas (loadQuotaConfig). */
  quotas: QuotaConfig;
  logDestination?: DestinationStream;
}

/** The credential schemes feedback-export serves, each checked by its own guard. */
const FEEDBACK_AUTH_SCHEMES: AuthSchemeGuards = {
  jwt: JwtAuthGuard,
  'site-read': SiteReadTokenGuard,
  'site-write': SiteWriteTokenGuard,
  portfolio: PortfolioTokenGuard,
  'feedback-token': AnyFeedbackTokenGuard,
  'feedback-mcp': FeedbackMcpAuthGuard,
  'site-write-or-jwt': SiteWriteTokenOrJwtGuard,
};

@Module({})
export class FeedbackExportModule {
  static forRoot(options: FeedbackExportOptions): DynamicModule {
    return {
      module: FeedbackExportModule,
      imports: [
        CoreModule.forRoot({ config: options.config, databaseUrl: options.databaseUrl, service: 'feedback-export', logDestination: options.logDestination, authSchemes: FEEDBACK_AUTH_SCHEMES, requestLogging: { secretPathPrefixes: SHARE_TOKEN_PATH_PREFIXES } }),
        AccountsCoreModule,
        QuotaConfigModule.forRoot(options.quotas),
        TokenAuthModule,
        SitesModule,
        FeedbackModule,
        WidgetModule,
        QuestionsModule,
        ShareModule,
        PagesModule,
        DashboardModule,
        FeedbackMcpModule,
        McpAuthModule,
        SiteWebhooksModule,
      ],
    };
  }
}
