import { Module } from '@nestjs/common';
import { McpToolMetrics } from '#libs/mcp';
import { TodosModule } from '../todos/todos.module.js';
import { McpController } from './mcp.controller.js';
import { McpService } from './mcp.service.js';

@Module({
  imports: [TodosModule],
  controllers: [McpController],
  providers: [McpService, McpToolMetrics],
})
export class McpModule {}
