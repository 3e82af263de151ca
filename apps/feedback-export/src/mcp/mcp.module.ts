import { Module } from '@nestjs/common';
import { ObservabilityModule } from '#libs/common';
import { McpToolMetrics } from '#libs/mcp';
import { FeedbackMcpEndpoint } from './feedback-mcp.endpoint.js';
import { FeedbackMcpToolRegistry } from './feedback-mcp-tool.registry.js';
import { McpController } from './mcp.controller.js';

/**
 * The feedback service's MCP endpoint. Feature modules add tools by importing this module and
 * registering with FeedbackMcpToolRegistry in their onModuleInit (feedback-mcp.tools.ts, questions-mcp.tools.ts).
 */
@Module({
  imports: [ObservabilityModule],
  controllers: [McpController],
  providers: [FeedbackMcpToolRegistry, FeedbackMcpEndpoint, McpToolMetrics],
  exports: [FeedbackMcpToolRegistry],
})
export class FeedbackMcpModule {}
