import { Injectable, OnModuleInit } from '@nestjs/common';
import { z } from 'zod';
import { FeedbackMcpToolRegistry, sitesOf } from '../mcp/feedback-mcp-tool.registry.js';
import { SitesService } from './sites.service.js';

/** The sites tool of the MCP endpoint: which sites the caller's credential acts on, for the site tools' siteId argument. */
@Injectable()
export class SitesMcpTools implements OnModuleInit {
  constructor(
    private readonly registry: FeedbackMcpToolRegistry,
    private readonly sites: SitesService,
  ) {}

  onModuleInit(): void {
    this.registry.register({
      name: 'list_sites',
      title: 'List the sites this credential acts on',
      description:
        "The sites the site tools act on: a site token's own site, or every site an OAuth grant holds, with the scope held on each: {sites}. " +
        'When there are several, pass the one to act on as siteId to the site tools.',
      input: z.object({}),
      output: z.object({
        sites: z
          .array(
            z.object({
              id: z.string().describe('Site id (uuid): the siteId argument of the site tools'),
              slug: z.string().describe('Site slug'),
              name: z.string().describe('Site name'),
              scope: z.enum(['read', 'write']).describe('read: the reading tools; write: also the writing ones'),
            }),
          )
          .describe("In the order the account's sites were created"),
      }),
      scopes: ['read'],
      hints: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      run: async (principal) => ({ sites: await this.sites.listAccessible(principal.ownerId, sitesOf(principal)) }),
    });
  }
}
