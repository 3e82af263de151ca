import { Controller, Get, Header } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { Public, RawResponse } from '#libs/common';
import { MCP_PATH, protectedResourceMetadata, type ProtectedResource } from './protected-resource.js';

/**
 * RFC 9728 metadata of an app's MCP endpoint (a discovery document, described in the README
 * rather than the OpenAPI document). Each app's mcp/ extends it with its own resource.
 */
@ApiExcludeController()
@Controller('.well-known/oauth-protected-resource')
export abstract class ProtectedResourceController {
  private readonly metadata: Record<string, unknown>;

  protected constructor(resource: ProtectedResource) {
    this.metadata = protectedResourceMetadata(resource);
  }

  @Get(MCP_PATH.slice(1))
  @Public()
  @RawResponse()
  @Header('Cache-Control', 'public, max-age=3600')
  mcpResourceMetadata(): Record<string, unknown> {
    return this.metadata;
  }
}
