import { Module } from '@nestjs/common';
import { ObservabilityModule } from '#libs/common';
import { AccountsCoreModule } from '#libs/identity';
import { ApiAccessModule } from '../api-access/api-access.module.js';
import { McpModule } from '../mcp/mcp.module.js';
import { TodoEventsController } from './todo-events.controller.js';
import { TodoEventsListener } from './todo-events.listener.js';
import { TodoEventsService } from './todo-events.service.js';
import { TodoStreamCredentialChecks } from './todo-stream-credential-checks.service.js';
import { TodoStreamLeasesRepository } from './todo-stream-leases.repository.js';
import { TodoStreamLeasesService } from './todo-stream-leases.service.js';
import { TodoStreamRegistry } from './todo-streams.registry.js';
import { TodosController } from './todos.controller.js';
import { TodosMcpTools } from './todos-mcp.tools.js';
import { TodosRepository } from './todos.repository.js';
import { TodosService } from './todos.service.js';

@Module({
  imports: [ObservabilityModule, AccountsCoreModule, McpModule, ApiAccessModule],
  // The events route first: `/todos/events` must not be taken for `/todos/{todoId}`.
  controllers: [TodoEventsController, TodosController],
  providers: [
    TodosRepository,
    TodosService,
    TodosMcpTools,
    TodoEventsService,
    TodoEventsListener,
    TodoStreamRegistry,
    TodoStreamCredentialChecks,
    TodoStreamLeasesRepository,
    TodoStreamLeasesService,
  ],
  exports: [TodosService, TodoEventsService],
})
export class TodosModule {}
