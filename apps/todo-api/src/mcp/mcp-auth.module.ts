import { Module } from '@nestjs/common';
import { AccountsCoreModule } from '#libs/identity';
import { ApiAccessModule } from '../api-access/api-access.module.js';
import { TodoMcpProtectedResourceController } from './protected-resource.controller.js';
import { TodoMcpAuthGuard } from './todo-mcp-auth.guard.js';

/** The todo MCP endpoint as an OAuth protected resource: its metadata, and its credential guard with the 401 challenge. */
@Module({
  imports: [AccountsCoreModule, ApiAccessModule],
  controllers: [TodoMcpProtectedResourceController],
  providers: [TodoMcpAuthGuard],
  exports: [TodoMcpAuthGuard],
})
export class McpAuthModule {}
