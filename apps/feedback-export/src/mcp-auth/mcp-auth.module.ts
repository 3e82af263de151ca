import { Module } from '@nestjs/common';
import { SitesModule } from '../sites/sites.module.js';
import { FeedbackMcpAuthGuard } from './feedback-mcp-auth.guard.js';
import { ProtectedResourceController } from './protected-resource.controller.js';

/** The feedback MCP endpoint as an OAuth protected resource: its metadata, and its credential guard with the 401 challenge. */
@Module({
  imports: [SitesModule],
  controllers: [ProtectedResourceController],
  providers: [FeedbackMcpAuthGuard],
  exports: [FeedbackMcpAuthGuard],
})
export class McpAuthModule {}
