import { Controller, Get, Header, Inject } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { protectedResourceMetadata } from '#libs/identity';
import { Public, RawResponse } from '#libs/common';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { todoMcpResource } from './todo-mcp.resource.js';

/** RFC 9728 metadata of the todo MCP endpoint (a discovery document, described in the README rather than the OpenAPI document). */
@ApiExcludeController()
@Controller('.well-known/oauth-protected-resource')
export class ProtectedResourceController {
  private readonly metadata: Record<string, unknown>;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.metadata = protectedResourceMetadata(todoMcpResource(config));
  }

  @Get('api/v1/mcp')
  @Public()
  @RawResponse()
  @Header('Cache-Control', 'public, max-age=3600')
  todoMcp(): Record<string, unknown> {
    return this.metadata;
  }
}
