import { Injectable, OnModuleInit } from '@nestjs/common';
import { z } from 'zod';
import { MAX_PAGE_SIZE } from '../feedback/dto/feedback.dto.js';
import { FEEDBACK_STATUSES, FEEDBACK_TYPES } from '../feedback/feedback-kinds.js';
import { FeedbackService, type ExportQuery } from '../feedback/feedback.service.js';
import type { PortfolioPrincipal, SitePrincipal } from '../token-auth/feedback-token.authenticator.js';
import { FeedbackMcpToolRegistry } from './feedback-mcp-tool.registry.js';

const pageArguments = {
  since: z.string().max(1000).optional().describe('nextCursor of the previous call; omit to start at the oldest row'),
  limit: z.number().int().min(1).max(MAX_PAGE_SIZE).optional().describe(`page size, 1..${MAX_PAGE_SIZE}, default 50`),
  type: z.enum(FEEDBACK_TYPES).optional(),
  status: z.enum(FEEDBACK_STATUSES).optional(),
};

/** The feedback tools of the MCP server: the REST export and triage, through the same service. */
@Injectable()
export class FeedbackMcpTools implements OnModuleInit {
  constructor(
    private readonly registry: FeedbackMcpToolRegistry,
    private readonly feedback: FeedbackService,
  ) {}

  onModuleInit(): void {
    this.registry.register({
      name: 'list_feedback',
      title: 'List site feedback',
      description:
        "One page of the site's feedback in (createdAt, id) order: {feedback, nextCursor, hasMore}. Pass nextCursor as since; keep calling while hasMore is true.",
      inputSchema: pageArguments,
      scopes: ['read', 'write'],
      readOnly: true,
      run: async (principal, args) => ({ ...(await this.feedback.pageOfSite(principal as SitePrincipal, args as ExportQuery)) }),
    });
    this.registry.register({
      name: 'update_feedback_status',
      title: 'Triage feedback',
      description: 'Set the status of one of the site’s feedback items to triaged or resolved; answers {feedback}.',
      inputSchema: { id: z.string().describe('feedback id (uuid)'), status: z.enum(['triaged', 'resolved']) },
      scopes: ['write'],
      readOnly: false,
      run: async (principal, args) => ({ feedback: await this.feedback.updateStatus(principal as SitePrincipal, String(args.id), String(args.status)) }),
    });
    this.registry.register({
      name: 'list_portfolio_feedback',
      title: 'List feedback of every site',
      description:
        'One page of feedback across every site of the account in (createdAt, siteId, id) order, items with siteSlug and siteName, plus every site: {feedback, nextCursor, hasMore, sites}.',
      inputSchema: pageArguments,
      scopes: ['portfolio'],
      readOnly: true,
      run: async (principal, args) => ({ ...(await this.feedback.pageOfPortfolio(principal as PortfolioPrincipal, args as ExportQuery)) }),
    });
  }
}
