import { Injectable, OnModuleInit } from '@nestjs/common';
import { z } from 'zod';
import { UUID_PATTERN } from '#libs/common';
import { FeedbackMcpToolRegistry } from '../mcp/feedback-mcp-tool.registry.js';
import { BATCH_STATUSES } from './batch-status.js';
import {
  CreateQuestionBatchDto,
  MAX_HTML_LENGTH,
  MAX_QUESTION_NUMBER,
  MAX_QUESTIONS,
  MAX_TITLE_LENGTH,
  UpdateQuestionBatchDto,
} from './dto/question-batch.dto.js';
import { MAX_BATCH_HTML_ELEMENTS, MAX_BATCH_HTML_LENGTH, MAX_HTML_NESTING } from './html-policy.js';
import { QuestionsService } from './questions.service.js';

// A size check that aborts comes before every pattern: a long string is refused before any pattern runs on it.
const batchId = z.string().max(36, { abort: true, error: 'must be a UUID' }).regex(UUID_PATTERN, 'must be a UUID').describe('Question batch id (uuid), from list_question_batches or create_question_batch');
const title = z.string().min(1).max(MAX_TITLE_LENGTH, { abort: true }).regex(/\S/, 'must not be blank');
const timestamp = z.string().describe('ISO 8601 date-time');
const count = z.number().int().nonnegative();
const html = (what: string) => z.string().max(MAX_HTML_LENGTH).describe(`${what}: HTML up to ${MAX_HTML_LENGTH.toLocaleString('en-US')} characters, sanitised when stored (formatting, lists, quotes, code and http/https/mailto links are kept)`);
const notifyEmail = z.string().max(254, { abort: true }).email();
const questionsInput = z
  .array(
    z.strictObject({
      n: z.number().int().min(1).max(MAX_QUESTION_NUMBER).describe(`Question number 1..${MAX_QUESTION_NUMBER.toLocaleString('en-US')}, unique in the batch; questions are shown in ascending n`),
      title: title.describe(`The question's title, 1..${MAX_TITLE_LENGTH} characters, not blank`),
      html: html('The body of the question'),
    }),
  )
  .min(1)
  .max(MAX_QUESTIONS);

const batchSummary = z.object({
  id: z.string().describe('Batch id (uuid)'),
  title: z.string().describe('The batch title'),
  status: z.enum(BATCH_STATUSES).describe('draft, sent, opened (the recipient viewed it) or answered (the recipient submitted)'),
  questionCount: count.describe('Questions in the batch'),
  answerCount: count.describe('Questions with a saved answer'),
  createdAt: timestamp.describe('When the batch was created (ISO 8601)'),
  sentAt: timestamp.nullable().describe('When it was sent (ISO 8601); null for a draft'),
  openedAt: timestamp.nullable().describe('First view of the share page (ISO 8601); null before'),
  answeredAt: timestamp.nullable().describe('First submit (ISO 8601); null before'),
});
const batchDetail = batchSummary.extend({
  introHtml: z.string().describe('Sanitised intro HTML; empty when none'),
  notifyEmail: z.string().describe('Who is e-mailed when the recipient submits'),
  questions: z
    .array(
      z.object({
        n: count.describe('Question number'),
        title: z.string().describe("The question's title"),
        html: z.string().describe('Sanitised HTML of the question'),
        answer: z
          .object({ text: z.string().describe("The recipient's answer"), updatedAt: timestamp.describe('Last save of this answer (ISO 8601)') })
          .nullable()
          .describe('null when unanswered'),
      }),
    )
    .describe('Ascending n, each beside its answer'),
});
const shareUrl = z.string().describe('The share link to give the recipient: FEEDBACK_PUBLIC_BASE_URL + /q/{shareToken}');
const batchResult = z.object({ batch: batchDetail.describe('The batch with its questions and answers') });
const sentResult = z.object({ id: z.string().describe('Batch id (uuid)'), status: z.enum(BATCH_STATUSES).describe('The batch status: sent'), shareUrl });

/** The question-batch tools of the MCP endpoint: the REST routes' rules, through the same service. */
@Injectable()
export class QuestionsMcpTools implements OnModuleInit {
  constructor(
    private readonly registry: FeedbackMcpToolRegistry,
    private readonly questions: QuestionsService,
  ) {}

  onModuleInit(): void {
    this.registry.registerForSite({
      name: 'list_question_batches',
      title: 'List question batches',
      description: "The site's question batches, oldest first, with status and question and answer counts: {batches}. Never includes share links.",
      input: z.object({}),
      output: z.object({ batches: z.array(batchSummary).describe('Oldest first; never share links') }),
      scopes: ['read'],
      hints: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      run: async (site) => ({ batches: await this.questions.list(site.ownerId, site.siteId) }),
    });
    this.registry.registerForSite({
      name: 'get_question_batch',
      title: 'Get a question batch with answers',
      description: 'One batch with its questions beside the answers, each answer with its own updatedAt: {batch}.',
      input: z.object({ id: batchId }),
      output: batchResult,
      scopes: ['read'],
      hints: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      run: async (site, args) => ({ batch: await this.questions.detail(site.ownerId, site.siteId, args.id) }),
    });
    this.registry.registerForSite({
      name: 'create_question_batch',
      title: 'Create a question batch',
      description:
        `Create a batch of 1..${MAX_QUESTIONS} questions (n unique) as a draft, or sent at once with sendNow: {id, status} plus shareUrl when sent. ` +
        `HTML is sanitised once, when stored; each html nests at most ${MAX_HTML_NESTING} elements deep, the batch's HTML together at most ` +
        `${MAX_BATCH_HTML_LENGTH.toLocaleString('en-US')} characters and ${MAX_BATCH_HTML_ELEMENTS.toLocaleString('en-US')} elements. notifyEmail defaults to the site owner's e-mail.`,
      input: z.object({
        title: title.describe(`The batch title, 1..${MAX_TITLE_LENGTH} characters, not blank`),
        introHtml: html('Shown above the questions').optional(),
        notifyEmail: notifyEmail.optional().describe("Who is e-mailed when the recipient submits; defaults to the site owner's e-mail"),
        sendNow: z.boolean().optional().describe('true: create it sent and answer its shareUrl; false or omitted: a draft, sent later with send_question_batch'),
        questions: questionsInput.describe(`1..${MAX_QUESTIONS} questions, n unique`),
      }),
      output: z.object({
        id: z.string().describe('The new batch id (uuid)'),
        status: z.enum(BATCH_STATUSES).describe('draft, or sent with sendNow'),
        shareUrl: shareUrl.optional().describe('The share link; present only when sent'),
      }),
      rules: CreateQuestionBatchDto,
      scopes: ['write'],
      hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
      run: async (site, args) => this.questions.create(site, args),
    });
    this.registry.registerForSite({
      name: 'get_share_link',
      title: 'Get the share link of a sent batch',
      description: 'The share URL of a sent batch: {shareUrl}. A draft is BATCH_NOT_SENT.',
      input: z.object({ id: batchId }),
      output: z.object({ shareUrl }),
      scopes: ['write'],
      hints: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      run: async (site, args) => this.questions.linkForToken(site, args.id),
    });
    this.registry.registerForSite({
      name: 'update_question_batch',
      title: 'Edit a draft question batch',
      description:
        'Edit a draft: the fields given replace the stored ones under create_question_batch\'s rules (questions replace the whole list); ' +
        "introHtml null clears the intro, notifyEmail null puts back the site owner's e-mail. Answers {batch}. A batch already sent is BATCH_ALREADY_SENT.",
      input: z.object({
        id: batchId,
        title: title.optional().describe(`A new title, 1..${MAX_TITLE_LENGTH} characters, not blank`),
        introHtml: html('A new intro').nullable().optional().describe('A new intro (HTML, sanitised when stored); null clears it'),
        notifyEmail: notifyEmail.nullable().optional().describe("A new address to e-mail on submit; null: the site owner's e-mail"),
        questions: questionsInput.optional().describe(`Replaces every question: 1..${MAX_QUESTIONS}, n unique`),
      }),
      output: batchResult,
      rules: UpdateQuestionBatchDto,
      scopes: ['write'],
      hints: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
      run: async (site, { id, ...changes }) => ({ batch: await this.questions.updateDraft(site, id, changes) }),
    });
    this.registry.registerForSite({
      name: 'delete_question_batch',
      title: 'Delete a draft question batch',
      description: 'Delete a draft with its questions, for good: {id, deleted: true}. A batch already sent is BATCH_ALREADY_SENT (its recipient holds the link).',
      input: z.object({ id: batchId }),
      output: z.object({ id: z.string().describe('The deleted batch id (uuid)'), deleted: z.literal(true).describe('Always true') }),
      scopes: ['write'],
      hints: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
      run: async (site, args) => this.questions.deleteDraft(site, args.id),
    });
    this.registry.registerForSite({
      name: 'send_question_batch',
      title: 'Send a draft question batch',
      description: 'Send a draft: its share link becomes live and is answered as {id, status, shareUrl}. A batch already sent is BATCH_ALREADY_SENT (get_share_link gives its link).',
      input: z.object({ id: batchId }),
      output: sentResult,
      scopes: ['write'],
      hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
      run: async (site, args) => this.questions.sendDraft(site, args.id),
    });
  }
}
