import { Module } from '@nestjs/common';
import { ProtectedResourceController } from './protected-resource.controller.js';
import { TodoMcpAuthGuard } from './todo-mcp-auth.guard.js';

/** The todo MCP endpoint as an OAuth protected resource: its metadata, and its credential guard with the 401 challenge. */
@Module({
  controllers: [ProtectedResourceController],
  providers: [TodoMcpAuthGuard],
  exports: [TodoMcpAuthGuard],
})
export class McpAuthModule {}
