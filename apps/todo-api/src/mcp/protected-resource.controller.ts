import { Inject } from '@nestjs/common';
import { ProtectedResourceController } from '#libs/identity';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { todoMcpResource } from './todo-mcp.resource.js';

/** RFC 9728 metadata of the todo MCP endpoint (the route and its decorators are the wing's ProtectedResourceController's). */
export class TodoMcpProtectedResourceController extends ProtectedResourceController {
  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    super(todoMcpResource(config));
  }
}
