import { Injectable, OnModuleInit } from '@nestjs/common';
import { z } from 'zod';
import { UUID_PATTERN } from '#libs/common';
import { FeedbackMcpToolRegistry, siteAccessOf } from '../mcp/feedback-mcp-tool.registry.js';
import { BATCH_STATUSES, MAX_HTML_LENGTH, MAX_QUESTION_NUMBER, MAX_QUESTIONS, MAX_TITLE_LENGTH } from './dto/question-batch.dto.js';
import { MAX_BATCH_HTML_ELEMENTS, MAX_BATCH_HTML_LENGTH, MAX_HTML_NESTING } from './html-policy.js';
import { QuestionsService } from './questions.service.js';

// A size check that aborts comes before every pattern: a long string is refused before any pattern runs on it.
const batchId = z.string().max(36, { abort: true, error: 'must be a UUID' }).regex(UUID_PATTERN, 'must be a UUID').describe('question batch id (uuid)');
const title = z.string().min(1).max(MAX_TITLE_LENGTH, { abort: true }).regex(/\S/, 'must not be blank');
const timestamp = z.string().describe('ISO 8601 date-time');

const batchSummary = z.object({
  id: z.string(),
  title: z.string(),
  status: z.enum(BATCH_STATUSES),
  questionCount: z.number().int(),
  answerCount: z.number().int().describe('Questions with a saved answer'),
  createdAt: timestamp,
  sentAt: timestamp.nullable(),
  openedAt: timestamp.nullable().describe('First view of the share page'),
  answeredAt: timestamp.nullable().describe('First submit'),
});
const batchDetail = batchSummary.extend({
  introHtml: z.string(),
  notifyEmail: z.string(),
  questions: z.array(
    z.object({ n: z.number().int(), title: z.string(), html: z.string(), answer: z.object({ text: z.string(), updatedAt: timestamp }).nullable() }),
  ),
});
const shareUrl = z.string().describe('FEEDBACK_PUBLIC_BASE_URL + /q/{shareToken}');

/** The question-batch tools of the MCP endpoint: the REST routes' rules, through the same service. */
@Injectable()
export class QuestionsMcpTools implements OnModuleInit {
  constructor(
    private readonly registry: FeedbackMcpToolRegistry,
    private readonly questions: QuestionsService,
  ) {}

  onModuleInit(): void {
    this.registry.register({
      name: 'list_question_batches',
      title: 'List question batches',
      description: "The site's question batches, oldest first, with status and question and answer counts: {batches}. Never includes share links.",
      input: z.object({}),
      output: z.object({ batches: z.array(batchSummary) }),
      scopes: ['read'],
      hints: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      run: async (principal) => {
        const site = siteAccessOf(principal);
        return { batches: await this.questions.list(site.ownerId, site.siteId) };
      },
    });
    this.registry.register({
      name: 'get_question_batch',
      title: 'Get a question batch with answers',
      description: 'One batch with its questions beside the answers, each answer with its own updatedAt: {batch}.',
      input: z.object({ id: batchId }),
      output: z.object({ batch: batchDetail }),
      scopes: ['read'],
      hints: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      run: async (principal, args) => {
        const site = siteAccessOf(principal);
        return { batch: await this.questions.detail(site.ownerId, site.siteId, args.id) };
      },
    });
    this.registry.register({
      name: 'create_question_batch',
      title: 'Create a question batch',
      description:
        `Create a batch of 1..${MAX_QUESTIONS} questions (n unique) as a draft, or sent at once with sendNow: {id, status} plus shareUrl when sent. ` +
        `HTML is sanitised once, when stored; each html nests at most ${MAX_HTML_NESTING} elements deep, the batch's HTML together at most ` +
        `${MAX_BATCH_HTML_LENGTH.toLocaleString('en-US')} characters and ${MAX_BATCH_HTML_ELEMENTS.toLocaleString('en-US')} elements. notifyEmail defaults to the site owner's e-mail.`,
      input: z.object({
        title,
        introHtml: z.string().max(MAX_HTML_LENGTH).optional(),
        notifyEmail: z.string().max(254, { abort: true }).email().optional(),
        sendNow: z.boolean().optional(),
        questions: z
          .array(z.strictObject({ n: z.number().int().min(1).max(MAX_QUESTION_NUMBER), title, html: z.string().max(MAX_HTML_LENGTH) }))
          .min(1)
          .max(MAX_QUESTIONS),
      }),
      output: z.object({ id: z.string(), status: z.enum(BATCH_STATUSES), shareUrl: shareUrl.optional().describe('Present when sent') }),
      scopes: ['write'],
      hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
      run: async (principal, args) => this.questions.create(siteAccessOf(principal), args),
    });
    this.registry.register({
      name: 'get_share_link',
      title: 'Get the share link of a sent batch',
      description: 'The share URL of a sent batch: {shareUrl}. A draft is BATCH_NOT_SENT.',
      input: z.object({ id: batchId }),
      output: z.object({ shareUrl }),
      scopes: ['write'],
      hints: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      run: async (principal, args) => this.questions.linkForToken(siteAccessOf(principal), args.id),
    });
  }
}
