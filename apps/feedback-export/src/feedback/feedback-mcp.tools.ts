import { Injectable, OnModuleInit } from '@nestjs/common';
import { z } from 'zod';
import { UUID_PATTERN, validationException } from '#libs/common';
import { FeedbackMcpToolRegistry, portfolioOf, siteAccessOf } from '../mcp/feedback-mcp-tool.registry.js';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from './dto/feedback.dto.js';
import { FEEDBACK_STATUSES, FEEDBACK_TYPES } from './feedback-kinds.js';
import { FeedbackService, type ExportQuery } from './feedback.service.js';

const cursor = z.string().min(1).max(1000);
const pageArguments = z.object({
  cursor: cursor.optional().describe('nextCursor of the previous call; omit to start at the oldest row'),
  since: cursor.optional().describe('The REST name of cursor (either, not both)'),
  limit: z.number().int().min(1).max(MAX_PAGE_SIZE).optional().describe(`Page size, 1..${MAX_PAGE_SIZE}, default ${DEFAULT_PAGE_SIZE}`),
  type: z.enum(FEEDBACK_TYPES).optional(),
  status: z.enum(FEEDBACK_STATUSES).optional(),
});

/** The page arguments as the export service takes them (`since` is its name for the cursor). */
function exportQueryOf({ cursor: given, since, ...filters }: z.output<typeof pageArguments>): ExportQuery {
  if (given !== undefined && since !== undefined) throw validationException([{ field: 'since', messages: ['give cursor or since, not both'] }]);
  return { ...filters, since: given ?? since };
}

const feedbackItem = z.object({
  id: z.string(),
  siteId: z.string(),
  type: z.enum(FEEDBACK_TYPES),
  message: z.string(),
  rating: z.number().int().nullable(),
  pageUrl: z.string(),
  status: z.enum(FEEDBACK_STATUSES),
  createdAt: z.string().describe('UTC, YYYY-MM-DD HH:MM:SS'),
});
const nextCursor = z.string().describe('Pass as cursor on the next call; an empty page returns the cursor it was given');
const hasMore = z.boolean().describe('True when more rows are available now; false when caught up');

/** The feedback tools of the MCP endpoint: the REST export and triage, through the same service. */
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
        "One page of the site's feedback in (createdAt, id) order: {feedback, nextCursor, hasMore}. Pass nextCursor as cursor; keep calling while hasMore is true.",
      input: pageArguments,
      output: z.object({ feedback: z.array(feedbackItem), nextCursor, hasMore }),
      scopes: ['read'],
      hints: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      run: async (principal, args) => this.feedback.pageOfSite(siteAccessOf(principal), exportQueryOf(args)),
    });
    this.registry.register({
      name: 'update_feedback_status',
      title: 'Triage feedback',
      description: 'Set the status of one of the site’s feedback items to triaged or resolved; answers {feedback}.',
      input: z.object({ id: z.string().max(36, { abort: true, error: 'must be a UUID' }).regex(UUID_PATTERN, 'must be a UUID').describe('feedback id (uuid)'), status: z.enum(['triaged', 'resolved']) }),
      output: z.object({ feedback: feedbackItem }),
      scopes: ['write'],
      hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      run: async (principal, args) => ({ feedback: await this.feedback.updateStatus(siteAccessOf(principal), args.id, args.status) }),
    });
    this.registry.register({
      name: 'list_portfolio_feedback',
      title: 'List feedback of every site',
      description:
        'One page of feedback across every site of the account in (createdAt, siteId, id) order, items with siteSlug and siteName, plus every site: ' +
        '{feedback, nextCursor, hasMore, sites}. Pass nextCursor as cursor; keep calling while hasMore is true.',
      input: pageArguments,
      output: z.object({
        feedback: z.array(feedbackItem.extend({ siteSlug: z.string(), siteName: z.string() })),
        nextCursor,
        hasMore,
        sites: z.array(z.object({ id: z.string(), slug: z.string(), name: z.string() })).describe('Every site of the account, also those without feedback'),
      }),
      scopes: ['portfolio'],
      hints: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      run: async (principal, args) => this.feedback.pageOfPortfolio(portfolioOf(principal), exportQueryOf(args)),
    });
  }
}
