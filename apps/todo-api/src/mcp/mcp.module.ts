import { Module } from '@nestjs/common';
import { ObservabilityModule } from '#libs/common';
import { McpToolMetrics } from '#libs/mcp';
import { McpController } from './mcp.controller.js';
import { TodoMcpEndpoint } from './todo-mcp.endpoint.js';
import { TodoMcpToolRegistry } from './todo-mcp-tool.registry.js';

/**
 * The todo service's MCP endpoint. Feature modules add tools by importing this module and
 * registering with TodoMcpToolRegistry in their onModuleInit (see todos/todos-mcp.tools.ts).
 */
@Module({
  imports: [ObservabilityModule],
  controllers: [McpController],
  providers: [TodoMcpToolRegistry, TodoMcpEndpoint, McpToolMetrics],
  exports: [TodoMcpToolRegistry],
})
export class McpModule {}
