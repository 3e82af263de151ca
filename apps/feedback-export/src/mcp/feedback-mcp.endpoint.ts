import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { mcpAllowedOrigins, McpToolMetrics, StatelessMcpEndpoint } from '#libs/mcp';
import { FeedbackMcpToolRegistry, type FeedbackMcpPrincipal, type FeedbackMcpScope } from './feedback-mcp-tool.registry.js';

const SERVER = {
  info: { name: 'feedback-export', version: '1.0.0' },
  instructions:
    "Tools to read a site's feedback by cursor, triage it, and ask and read question batches. tools/list shows the tools your token may call. " +
    'Errors come back as tool results with isError and a code such as NOT_FOUND, VALIDATION_ERROR or INVALID_TOKEN.',
};

/** POST /api/v1/mcp of the feedback service: its tools over stateless streamable HTTP. */
@Injectable()
export class FeedbackMcpEndpoint extends StatelessMcpEndpoint<FeedbackMcpPrincipal, FeedbackMcpScope> {
  constructor(registry: FeedbackMcpToolRegistry, toolMetrics: McpToolMetrics, @Inject(APP_CONFIG) config: AppConfig) {
    super(SERVER, registry, toolMetrics, mcpAllowedOrigins(config.feedbackPublicBaseUrl, config.corsOrigins));
  }
}
