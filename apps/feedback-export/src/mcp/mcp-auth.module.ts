import { Module } from '@nestjs/common';
import { AccountsCoreModule } from '#libs/identity';
import { TokenAuthModule } from '../token-auth/token-auth.module.js';
import { FeedbackMcpAuthGuard } from './feedback-mcp-auth.guard.js';
import { FeedbackMcpProtectedResourceController } from './protected-resource.controller.js';

/** The feedback MCP endpoint as an OAuth protected resource: its metadata, and its credential guard with the 401 challenge. */
@Module({
  imports: [AccountsCoreModule, TokenAuthModule],
  controllers: [FeedbackMcpProtectedResourceController],
  providers: [FeedbackMcpAuthGuard],
  exports: [FeedbackMcpAuthGuard],
})
export class McpAuthModule {}
