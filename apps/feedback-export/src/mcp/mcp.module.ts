import { Module } from '@nestjs/common';
import { McpToolMetrics } from '#libs/mcp';
import { FeedbackModule } from '../feedback/feedback.module.js';
import { SitesModule } from '../sites/sites.module.js';
import { FeedbackMcpToolRegistry } from './feedback-mcp-tool.registry.js';
import { FeedbackMcpServerFactory } from './feedback-mcp.server.js';
import { FeedbackMcpTools } from './feedback-tools.js';
import { McpController } from './mcp.controller.js';

/**
 * The feedback service's MCP endpoint. Other feature modules add tools by importing this
 * module and calling FeedbackMcpToolRegistry.register in their onModuleInit.
 */
@Module({
  imports: [SitesModule, FeedbackModule],
  controllers: [McpController],
  providers: [FeedbackMcpToolRegistry, FeedbackMcpServerFactory, FeedbackMcpTools, McpToolMetrics],
  exports: [FeedbackMcpToolRegistry],
})
export class FeedbackMcpModule {}
