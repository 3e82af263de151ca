import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { ApiEnvelope, ApiErrors, CurrentPrincipal, CurrentUserId, ErrorCode, RateLimit, UseAuth, UUID_PARAM, type RateLimitOptions } from '#libs/common';
import { EXPORT_TOKEN_RATE_LIMIT } from '../token-auth/export-rate-limit.js';
import type { SitePrincipal } from '../token-auth/feedback-token.authenticator.js';
import {
  BatchDataDto,
  BatchListDto,
  CreatedBatchDto,
  CreateQuestionBatchDto,
  DeletedBatchDto,
  MAX_HTML_LENGTH,
  PreviewQuestionsDto,
  QuestionsPreviewDto,
  SentBatchDto,
  ShareLinkDto,
  UpdateQuestionBatchDto,
} from './dto/question-batch.dto.js';
import { MAX_BATCH_HTML_ELEMENTS, MAX_BATCH_HTML_LENGTH, MAX_HTML_NESTING } from './html-policy.js';
import { QuestionsService } from './questions.service.js';

/** What the API refuses (400) before sanitising anything, stated once for every route that takes batch HTML. */
const HTML_LIMITS =
  `html and introHtml up to ${MAX_HTML_LENGTH.toLocaleString('en-US')} characters each, nested at most ${MAX_HTML_NESTING} elements deep; the batch's HTML together at most ` +
  `${MAX_BATCH_HTML_LENGTH.toLocaleString('en-US')} characters and ${MAX_BATCH_HTML_ELEMENTS.toLocaleString('en-US')} elements, and each field at most ${MAX_HTML_LENGTH.toLocaleString('en-US')} characters once sanitised.`;

/**
 * The preview sanitises on request (everything else serves HTML sanitised when stored): per owner,
 * enforced even while the counter store is down, as it only costs CPU and the editor works without it.
 */
const QUESTION_PREVIEW_RATE_LIMIT: RateLimitOptions = { bucket: 'question-preview', limit: 20, windowSeconds: 60, storeOutage: 'fail-closed' };

const BATCH_QUOTAS =
  'A site holds at most FEEDBACK_MAX_BATCHES_PER_SITE batches (default 500) and FEEDBACK_MAX_BATCH_BYTES_PER_SITE bytes of batch titles and HTML as stored (default 10 MiB): beyond, 403 QUOTA_EXCEEDED.';

/** Question batches through the site tokens (sk_ reads, wk_ also creates and fetches links). */
@ApiTags('Question batches')
@Controller('api/v1/export/questions')
@RateLimit(EXPORT_TOKEN_RATE_LIMIT)
export class QuestionsController {
  constructor(private readonly questions: QuestionsService) {}

  @Post()
  @UseAuth('site-write')
  @ApiOperation({
    operationId: 'createQuestionBatch',
    summary: 'Create a question batch (wk_ only): a draft, or sent at once with sendNow',
    description:
      `n is unique within the batch; 1..100 questions; titles 1..200 characters; ${HTML_LIMITS} HTML is sanitised once, when stored. ` +
      'notifyEmail defaults to the site owner’s e-mail. With sendNow true the answer carries shareUrl; a draft is sent later with POST /api/v1/export/questions/{id}/send or by its owner in the dashboard. ' +
      BATCH_QUOTAS,
  })
  @ApiEnvelope(CreatedBatchDto, { status: 201 })
  @ApiErrors(ErrorCode.INVALID_TOKEN, ErrorCode.QUOTA_EXCEEDED, ErrorCode.PAYLOAD_TOO_LARGE, ErrorCode.RATE_LIMITED)
  create(@CurrentPrincipal() principal: SitePrincipal, @Body() body: CreateQuestionBatchDto): Promise<CreatedBatchDto> {
    return this.questions.create(principal, body);
  }

  @Get()
  @UseAuth('site-read')
  @ApiOperation({ operationId: 'listQuestionBatches', summary: "The site's question batches with status and counts, oldest first (sk_ or wk_); never share links" })
  @ApiEnvelope(BatchListDto)
  @ApiErrors(ErrorCode.INVALID_TOKEN, ErrorCode.RATE_LIMITED)
  async list(@CurrentPrincipal() principal: SitePrincipal): Promise<BatchListDto> {
    return { batches: await this.questions.list(principal.ownerId, principal.siteId) };
  }

  @Get(':id')
  @UseAuth('site-read')
  @ApiOperation({ operationId: 'getQuestionBatch', summary: 'One batch: questions beside the answers, each answer with its own updatedAt (sk_ or wk_)' })
  @ApiParam({ name: 'id', format: 'uuid' })
  @ApiEnvelope(BatchDataDto)
  @ApiErrors(ErrorCode.INVALID_TOKEN, ErrorCode.NOT_FOUND, ErrorCode.RATE_LIMITED)
  async detail(@CurrentPrincipal() principal: SitePrincipal, @Param('id', UUID_PARAM) id: string): Promise<BatchDataDto> {
    return { batch: await this.questions.detail(principal.ownerId, principal.siteId, id) };
  }

  @Patch(':id')
  @UseAuth('site-write')
  @ApiOperation({
    operationId: 'updateQuestionBatch',
    summary: 'Edit a draft (wk_ only): the fields given replace the stored ones; a sent batch is 409 BATCH_ALREADY_SENT',
    description:
      `The create's rules for each field given (titles 1..200 characters; questions replace the whole list: 1..100, n unique; ${HTML_LIMITS}). ` +
      'introHtml null clears the intro; notifyEmail null puts back the site owner’s e-mail. The edited batch counts against the site’s stored bytes without its old text. ' +
      'Answers the batch as stored (sanitised).',
  })
  @ApiParam({ name: 'id', format: 'uuid' })
  @ApiEnvelope(BatchDataDto)
  @ApiErrors(ErrorCode.INVALID_TOKEN, ErrorCode.NOT_FOUND, ErrorCode.BATCH_ALREADY_SENT, ErrorCode.QUOTA_EXCEEDED, ErrorCode.PAYLOAD_TOO_LARGE, ErrorCode.RATE_LIMITED)
  async update(@CurrentPrincipal() principal: SitePrincipal, @Param('id', UUID_PARAM) id: string, @Body() body: UpdateQuestionBatchDto): Promise<BatchDataDto> {
    return { batch: await this.questions.updateDraft(principal, id, body) };
  }

  @Delete(':id')
  @UseAuth('site-write')
  @ApiOperation({ operationId: 'deleteQuestionBatch', summary: 'Delete a draft with its questions (wk_ only); a sent batch is 409 BATCH_ALREADY_SENT' })
  @ApiParam({ name: 'id', format: 'uuid' })
  @ApiEnvelope(DeletedBatchDto)
  @ApiErrors(ErrorCode.INVALID_TOKEN, ErrorCode.NOT_FOUND, ErrorCode.BATCH_ALREADY_SENT, ErrorCode.RATE_LIMITED)
  delete(@CurrentPrincipal() principal: SitePrincipal, @Param('id', UUID_PARAM) id: string): Promise<DeletedBatchDto> {
    return this.questions.deleteDraft(principal, id);
  }

  @Post(':id/send')
  @HttpCode(200)
  @UseAuth('site-write')
  @ApiOperation({
    operationId: 'sendQuestionBatchWithToken',
    summary: 'Send a draft (wk_ only): draft -> sent, the link becomes live and is answered',
    description: 'A batch already sent is 409 BATCH_ALREADY_SENT (GET …/{id}/link gives its link); the owner’s dashboard send answers such a batch as it is instead.',
  })
  @ApiParam({ name: 'id', format: 'uuid' })
  @ApiEnvelope(SentBatchDto)
  @ApiErrors(ErrorCode.INVALID_TOKEN, ErrorCode.NOT_FOUND, ErrorCode.BATCH_ALREADY_SENT, ErrorCode.RATE_LIMITED)
  send(@CurrentPrincipal() principal: SitePrincipal, @Param('id', UUID_PARAM) id: string): Promise<SentBatchDto> {
    return this.questions.sendDraft(principal, id);
  }

  @Get(':id/link')
  @UseAuth('site-write')
  @ApiOperation({ operationId: 'getQuestionBatchLink', summary: 'The share URL of a sent batch (wk_ only); a draft is 409 BATCH_NOT_SENT' })
  @ApiParam({ name: 'id', format: 'uuid' })
  @ApiEnvelope(ShareLinkDto)
  @ApiErrors(ErrorCode.INVALID_TOKEN, ErrorCode.NOT_FOUND, ErrorCode.BATCH_NOT_SENT, ErrorCode.RATE_LIMITED)
  link(@CurrentPrincipal() principal: SitePrincipal, @Param('id', UUID_PARAM) id: string): Promise<ShareLinkDto> {
    return this.questions.linkForToken(principal, id);
  }
}

/**
 * The owner's batch writes (create, send): 60 per hour per account, together; refused while the
 * counters' store is down. A write token's batches count against the export budget instead.
 */
const OWNER_BATCH_WRITE_RATE_LIMIT: RateLimitOptions = { bucket: 'question-batch-write', limit: 60, windowSeconds: 3600, storeOutage: 'fail-closed' };

/** The owner's side of question batches (JWT): what the dashboard shows, and sending a draft. */
@ApiTags('Question batches')
@UseAuth('jwt')
@Controller('api/v1/sites/:siteId/questions')
export class OwnerQuestionsController {
  constructor(private readonly questions: QuestionsService) {}

  @Get()
  @ApiOperation({ operationId: 'listSiteQuestionBatches', summary: "The site's question batches, oldest first (owner)" })
  @ApiParam({ name: 'siteId', format: 'uuid' })
  @ApiEnvelope(BatchListDto)
  @ApiErrors(ErrorCode.AUTH_REQUIRED, ErrorCode.NOT_FOUND)
  async list(@CurrentUserId() ownerId: string, @Param('siteId', UUID_PARAM) siteId: string): Promise<BatchListDto> {
    return { batches: await this.questions.listForOwner(ownerId, siteId) };
  }

  @Post()
  @RateLimit(OWNER_BATCH_WRITE_RATE_LIMIT)
  @ApiOperation({
    operationId: 'createSiteQuestionBatch',
    summary: 'Create a question batch on one of your sites (owner): a draft, or sent at once with sendNow',
    description: `The rules of POST /api/v1/export/questions, with the owner’s JWT instead of the write token (the dashboard’s editor). ${BATCH_QUOTAS}`,
  })
  @ApiParam({ name: 'siteId', format: 'uuid' })
  @ApiEnvelope(CreatedBatchDto, { status: 201 })
  @ApiErrors(ErrorCode.AUTH_REQUIRED, ErrorCode.QUOTA_EXCEEDED, ErrorCode.NOT_FOUND, ErrorCode.PAYLOAD_TOO_LARGE)
  create(@CurrentUserId() ownerId: string, @Param('siteId', UUID_PARAM) siteId: string, @Body() body: CreateQuestionBatchDto): Promise<CreatedBatchDto> {
    return this.questions.createForOwner(ownerId, siteId, body);
  }

  @Post('preview')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'previewSiteQuestions',
    summary: 'The intro and question HTML as the recipient will see it, sanitised by the server (owner); nothing is stored',
    description: `The create route's HTML rules: ${HTML_LIMITS} ${QUESTION_PREVIEW_RATE_LIMIT.limit} previews per minute per owner.`,
  })
  @RateLimit(QUESTION_PREVIEW_RATE_LIMIT)
  @ApiParam({ name: 'siteId', format: 'uuid' })
  @ApiEnvelope(QuestionsPreviewDto)
  @ApiErrors(ErrorCode.AUTH_REQUIRED, ErrorCode.NOT_FOUND, ErrorCode.PAYLOAD_TOO_LARGE)
  preview(@CurrentUserId() ownerId: string, @Param('siteId', UUID_PARAM) siteId: string, @Body() body: PreviewQuestionsDto): Promise<QuestionsPreviewDto> {
    return this.questions.preview(ownerId, siteId, body);
  }

  @Get(':batchId')
  @ApiOperation({ operationId: 'getSiteQuestionBatch', summary: 'One batch with questions and answers (owner)' })
  @ApiParam({ name: 'siteId', format: 'uuid' })
  @ApiParam({ name: 'batchId', format: 'uuid' })
  @ApiEnvelope(BatchDataDto)
  @ApiErrors(ErrorCode.AUTH_REQUIRED, ErrorCode.NOT_FOUND)
  async detail(@CurrentUserId() ownerId: string, @Param('siteId', UUID_PARAM) siteId: string, @Param('batchId', UUID_PARAM) batchId: string): Promise<BatchDataDto> {
    return { batch: await this.questions.detail(ownerId, siteId, batchId) };
  }

  @Get(':batchId/link')
  @ApiOperation({ operationId: 'getSiteQuestionBatchLink', summary: 'The share URL of a sent batch (owner); a draft is 409 BATCH_NOT_SENT' })
  @ApiParam({ name: 'siteId', format: 'uuid' })
  @ApiParam({ name: 'batchId', format: 'uuid' })
  @ApiEnvelope(ShareLinkDto)
  @ApiErrors(ErrorCode.AUTH_REQUIRED, ErrorCode.NOT_FOUND, ErrorCode.BATCH_NOT_SENT)
  link(@CurrentUserId() ownerId: string, @Param('siteId', UUID_PARAM) siteId: string, @Param('batchId', UUID_PARAM) batchId: string): Promise<ShareLinkDto> {
    return this.questions.link(ownerId, siteId, batchId);
  }

  @Post(':batchId/send')
  @HttpCode(200)
  @RateLimit(OWNER_BATCH_WRITE_RATE_LIMIT)
  @ApiOperation({
    operationId: 'sendQuestionBatch',
    summary: 'Send a draft: draft -> sent, the link becomes live (owner)',
    description: 'Sending a batch that is already sent changes nothing and answers its current status and link. A batch of another account is 404.',
  })
  @ApiParam({ name: 'siteId', format: 'uuid' })
  @ApiParam({ name: 'batchId', format: 'uuid' })
  @ApiEnvelope(SentBatchDto)
  @ApiErrors(ErrorCode.AUTH_REQUIRED, ErrorCode.NOT_FOUND)
  send(@CurrentUserId() ownerId: string, @Param('siteId', UUID_PARAM) siteId: string, @Param('batchId', UUID_PARAM) batchId: string): Promise<SentBatchDto> {
    return this.questions.send(ownerId, siteId, batchId);
  }
}
