import { Module } from '@nestjs/common';
import { ProtectedResourceController } from './protected-resource.controller.js';
import { TodoMcpAuthGuard } from './todo-mcp-auth.guard.js';

/** OAuth 2.1 for agents: the todo MCP endpoint as a protected resource. */
@Module({
  controllers: [ProtectedResourceController],
  providers: [TodoMcpAuthGuard],
  exports: [TodoMcpAuthGuard],
})
export class OAuthModule {}
