import { Injectable, OnModuleInit } from '@nestjs/common';
import { z } from 'zod';
import { UUID_PATTERN, validationException } from '#libs/common';
import { FeedbackMcpToolRegistry, portfolioOf } from '../mcp/feedback-mcp-tool.registry.js';
import { DEFAULT_PAGE_SIZE, ExportQueryDto, MAX_PAGE_SIZE, UpdateFeedbackStatusDto } from './dto/feedback.dto.js';
import { FEEDBACK_STATUSES, FEEDBACK_TYPES } from './feedback-kinds.js';
import { FeedbackService, type ExportQuery } from './feedback.service.js';

const cursor = z.string().min(1).max(1000);
const pageArguments = z.object({
  cursor: cursor.optional().describe('nextCursor of the previous call; omit to start at the oldest row'),
  // Published before cursor was the one paging argument of every list tool: kept, and refused together with cursor.
  since: cursor
    .optional()
    .meta({ deprecated: true })
    .describe('Deprecated: the REST name of cursor, still accepted alone; use cursor (giving both is VALIDATION_ERROR)'),
  limit: z.number().int().min(1).max(MAX_PAGE_SIZE).optional().describe(`Page size, 1..${MAX_PAGE_SIZE}, default ${DEFAULT_PAGE_SIZE}`),
  type: z.enum(FEEDBACK_TYPES).optional().describe(`Only feedback of this type (${FEEDBACK_TYPES.join(', ')})`),
  status: z.enum(FEEDBACK_STATUSES).optional().describe(`Only feedback in this triage status (${FEEDBACK_STATUSES.join(', ')})`),
});

/** The page arguments as the export service takes them (`since` is its name for the cursor). */
function exportQueryOf({ cursor: given, since, ...filters }: z.output<typeof pageArguments>): ExportQuery {
  if (given !== undefined && since !== undefined) throw validationException([{ field: 'since', messages: ['give cursor or since, not both: since is the REST name of cursor (use cursor)'] }]);
  return { ...filters, since: given ?? since };
}

const feedbackItem = z.object({
  id: z.string().describe('Feedback id (uuid)'),
  siteId: z.string().describe('The site it was sent on (uuid)'),
  type: z.enum(FEEDBACK_TYPES).describe(`What the reporter chose: ${FEEDBACK_TYPES.join(', ')}`),
  message: z.string().describe("The reporter's message, as sent"),
  rating: z.number().int().nullable().describe('The rating the reporter gave, or null'),
  pageUrl: z.string().describe('The page the widget was on'),
  status: z.enum(FEEDBACK_STATUSES).describe(`Triage status: ${FEEDBACK_STATUSES.join(', ')}`),
  createdAt: z.string().describe('When it was sent: UTC, YYYY-MM-DD HH:MM:SS'),
  reporterContext: z
    .object({
      browser: z.string().optional().describe('Browser name and major version, from the user agent'),
      os: z.string().optional().describe('Operating system, from the user agent'),
      viewport: z.string().optional().describe('Viewport width x height in CSS pixels when the feedback was sent, e.g. 390x844'),
      language: z.string().optional().describe("The browser's preferred language (BCP 47)"),
      referrer: z.string().optional().describe('The page that linked to the one the feedback was sent on, without its query or fragment'),
    })
    .optional()
    .describe("The reporter's browser as the widget captured it (never cookies or page content); absent when the submission carried none"),
  reporter: z
    .object({
      id: z.string().describe("The host site's own user id (the signed token's sub)"),
      email: z.string().optional().describe('Present when the token carried one'),
      name: z.string().optional().describe('Present when the token carried one'),
    })
    .optional()
    .describe("Who sent it, as the site's own server signed it (widget data-user-token); absent for anonymous feedback"),
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
    this.registry.registerForSite({
      name: 'list_feedback',
      title: 'List site feedback',
      description:
        "One page of the site's feedback in (createdAt, id) order: {feedback, nextCursor, hasMore}. Pass nextCursor as cursor; keep calling while hasMore is true.",
      input: pageArguments,
      output: z.object({ feedback: z.array(feedbackItem).describe('This page, in (createdAt, id) order'), nextCursor, hasMore }),
      rules: ExportQueryDto,
      scopes: ['read'],
      hints: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      run: async (site, args) => this.feedback.pageOfSite(site, exportQueryOf(args)),
    });
    this.registry.registerForSite({
      name: 'update_feedback_status',
      title: 'Triage feedback',
      description: 'Set the status of one of the site’s feedback items to triaged or resolved; answers {feedback}.',
      input: z.object({
        id: z.string().max(36, { abort: true, error: 'must be a UUID' }).regex(UUID_PATTERN, 'must be a UUID').describe('Feedback id (uuid), from list_feedback'),
        status: z.enum(['triaged', 'resolved']).describe('The new triage status: triaged or resolved'),
      }),
      output: z.object({ feedback: feedbackItem.describe('The feedback item as updated') }),
      rules: UpdateFeedbackStatusDto,
      scopes: ['write'],
      hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      run: async (site, args) => ({ feedback: await this.feedback.updateStatus(site, args.id, args.status) }),
    });
    this.registry.register({
      name: 'list_portfolio_feedback',
      title: 'List feedback of every site',
      description:
        'One page of feedback across every site of the account in (createdAt, siteId, id) order, items with siteSlug and siteName, plus every site: ' +
        '{feedback, nextCursor, hasMore, sites}. Pass nextCursor as cursor; keep calling while hasMore is true.',
      input: pageArguments,
      output: z.object({
        feedback: z
          .array(feedbackItem.extend({ siteSlug: z.string().describe("The item's site slug"), siteName: z.string().describe("The item's site name") }))
          .describe('This page, in (createdAt, siteId, id) order'),
        nextCursor,
        hasMore,
        sites: z
          .array(z.object({ id: z.string().describe('Site id (uuid)'), slug: z.string().describe('Site slug'), name: z.string().describe('Site name') }))
          .describe('Every site of the account, also those without feedback'),
      }),
      rules: ExportQueryDto,
      scopes: ['portfolio'],
      hints: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      run: async (principal, args) => this.feedback.pageOfPortfolio(portfolioOf(principal), exportQueryOf(args)),
    });
  }
}
