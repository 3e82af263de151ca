import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { mcpAllowedOrigins, McpToolMetrics, StatelessMcpEndpoint } from '#libs/mcp';
import { TodoMcpToolRegistry, type TodoMcpPrincipal, type TodoMcpScope } from './todo-mcp-tool.registry.js';

const SERVER = {
  info: { name: 'todo-api', title: 'Todo API', version: '1.0.0' },
  instructions:
    "Tools to read and change the user's todos. Priorities run from 1 (urgent) to 4 (low). " +
    'Errors come back as tool results with isError and a code such as NOT_FOUND or VALIDATION_ERROR.',
};

/** POST /api/v1/mcp of the todo service: its tools over stateless streamable HTTP. */
@Injectable()
export class TodoMcpEndpoint extends StatelessMcpEndpoint<TodoMcpPrincipal, TodoMcpScope> {
  constructor(registry: TodoMcpToolRegistry, toolMetrics: McpToolMetrics, @Inject(APP_CONFIG) config: AppConfig) {
    super(SERVER, registry, toolMetrics, mcpAllowedOrigins(config.publicBaseUrl, config.corsOrigins));
  }
}
