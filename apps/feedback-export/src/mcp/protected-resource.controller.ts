import { Inject } from '@nestjs/common';
import { ProtectedResourceController } from '#libs/identity';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { feedbackMcpResource } from './feedback-mcp.resource.js';

/** RFC 9728 metadata of the feedback MCP endpoint (the route and its decorators are the wing's ProtectedResourceController's). */
export class FeedbackMcpProtectedResourceController extends ProtectedResourceController {
  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    super(feedbackMcpResource(config));
  }
}
