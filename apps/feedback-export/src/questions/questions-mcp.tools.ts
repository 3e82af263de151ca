import { Injectable, OnModuleInit } from '@nestjs/common';
import { z } from 'zod';
import { UUID_PATTERN } from '#libs/common';
import { FeedbackMcpToolRegistry } from '../mcp/feedback-mcp-tool.registry.js';
import type { SitePrincipal } from '../token-auth/feedback-token.authenticator.js';
import { MAX_HTML_LENGTH, MAX_QUESTION_NUMBER, MAX_QUESTIONS, MAX_TITLE_LENGTH, type CreateQuestionBatchDto } from './dto/question-batch.dto.js';
import { QuestionsService } from './questions.service.js';

const batchId = z.string().regex(UUID_PATTERN, 'must be a UUID').describe('question batch id (uuid)');
const title = z.string().min(1).max(MAX_TITLE_LENGTH).regex(/\S/, 'must not be blank');


/** The question-batch tools of the MCP server: the REST routes' rules, through the same service. */
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
      inputSchema: {},
      scopes: ['read', 'write'],
      readOnly: true,
      run: async (principal) => {
        const site = principal as SitePrincipal;
        return { batches: await this.questions.list(site.ownerId, site.siteId) };
      },
    });
    this.registry.register({
      name: 'get_question_batch',
      title: 'Get a question batch with answers',
      description: 'One batch with its questions beside the answers, each answer with its own updatedAt: {batch}.',
      inputSchema: { id: batchId },
      scopes: ['read', 'write'],
      readOnly: true,
      run: async (principal, args) => {
        const site = principal as SitePrincipal;
        return { batch: await this.questions.detail(site.ownerId, site.siteId, String(args.id)) };
      },
    });
    this.registry.register({
      name: 'create_question_batch',
      title: 'Create a question batch',
      description:
        `Create a batch of 1..${MAX_QUESTIONS} questions (n unique) as a draft, or sent at once with sendNow: {id, status} plus shareUrl when sent. ` +
        "HTML is sanitised; notifyEmail defaults to the site owner's e-mail.",
      inputSchema: {
        title,
        introHtml: z.string().max(MAX_HTML_LENGTH).optional(),
        notifyEmail: z.email().max(254).optional(),
        sendNow: z.boolean().optional(),
        questions: z
          .array(z.strictObject({ n: z.number().int().min(1).max(MAX_QUESTION_NUMBER), title, html: z.string().max(MAX_HTML_LENGTH) }))
          .min(1)
          .max(MAX_QUESTIONS),
      },
      scopes: ['write'],
      readOnly: false,
      run: async (principal, args) => ({ ...(await this.questions.create(principal as SitePrincipal, args as unknown as CreateQuestionBatchDto)) }),
    });
    this.registry.register({
      name: 'get_share_link',
      title: 'Get the share link of a sent batch',
      description: 'The share URL of a sent batch: {shareUrl}. A draft is BATCH_NOT_SENT.',
      inputSchema: { id: batchId },
      scopes: ['write'],
      readOnly: true,
      run: async (principal, args) => ({ ...(await this.questions.linkForToken(principal as SitePrincipal, String(args.id))) }),
    });
  }
}
