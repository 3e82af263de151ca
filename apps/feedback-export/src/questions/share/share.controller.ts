import { readFileSync } from 'node:fs';
import { Body, Controller, Get, Header, HttpCode, Param, Post, Put, Res } from '@nestjs/common';
import { ApiExcludeEndpoint, ApiOperation, ApiParam, ApiProduces, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { ApiEnvelope, ApiErrors, AppException, ErrorCode, PAGE_HEADERS, PositiveIntPipe, Public, RateLimit, RawResponse, type RateLimitOptions } from '#libs/common';
import { SavedAnswerDto, SaveAnswerDto, SharedBatchDataDto, SubmittedDto } from '../dto/share.dto.js';
import { QuestionsService } from '../questions.service.js';
import { renderNotFoundPage, renderSharePage } from './share-page.js';

/** Per client IP over every share route: roomy for a person typing (autosave), tight for scripts guessing tokens. */
/** Per client IP; fails open (the 256-bit token is the access control, the limit only caps load). */
const SHARE_RATE_LIMIT: RateLimitOptions = { bucket: 'question-share', limit: 300, windowSeconds: 60, storeOutage: 'fail-open' };

/** Paths whose next segment is a share or unsubscribe token: the access log redacts it. */
export const SHARE_TOKEN_PATH_PREFIXES = ['/q/', '/api/v1/share/', '/unsubscribe/'];

const SHARE_TOKEN_PARAM = { name: 'shareToken', description: 'The share token from the share URL (43 characters)' };

/** The recipient's side: no account, the share token in the path is the only credential. */
@ApiTags('Question share page')
@Public()
@RateLimit(SHARE_RATE_LIMIT)
@Controller()
export class ShareController {
  constructor(private readonly questions: QuestionsService) {}

  @Get('q/:shareToken')
  @RawResponse()
  @ApiOperation({ operationId: 'getSharePage', summary: 'The recipient’s answer page (HTML). Its script fetches the batch, which marks the first view (sent -> opened). Unknown or draft: a 404 page.' })
  @ApiParam(SHARE_TOKEN_PARAM)
  @ApiProduces('text/html')
  @ApiResponse({
    status: 200,
    description: 'HTML page',
    content: { 'text/html': { schema: { type: 'string' }, example: '<!doctype html><html lang="en"><head><title>Homepage review</title>…</html>' } },
  })
  @ApiResponse({
    status: 404,
    description: 'HTML page: no such (sent) batch',
    content: { 'text/html': { schema: { type: 'string' }, example: '<!doctype html><html lang="en"><head><title>Not found</title>…</html>' } },
  })
  async page(@Param('shareToken') shareToken: string, @Res() response: Response): Promise<void> {
    response.set(PAGE_HEADERS);
    try {
      response.status(200).send(renderSharePage(await this.questions.viewShared(shareToken, false)));
    } catch (error) {
      if (error instanceof AppException && error.code === ErrorCode.NOT_FOUND) {
        response.status(404).send(renderNotFoundPage());
        return;
      }
      throw error;
    }
  }

  @Get('api/v1/share/:shareToken')
  @ApiOperation({ operationId: 'getSharedBatch', summary: 'The batch as its recipient sees it (moves sent -> opened on first view)' })
  @ApiParam(SHARE_TOKEN_PARAM)
  @ApiEnvelope(SharedBatchDataDto)
  @ApiErrors(ErrorCode.NOT_FOUND, ErrorCode.RATE_LIMITED)
  async get(@Param('shareToken') shareToken: string): Promise<SharedBatchDataDto> {
    return { batch: await this.questions.viewShared(shareToken, true) };
  }

  @Put('api/v1/share/:shareToken/answers/:n')
  @ApiOperation({
    operationId: 'saveSharedAnswer',
    summary: 'Save (create or replace) the answer to question n; also after submit. Each save updates that answer’s updatedAt.',
    description: 'text is plain text, 1..20,000 characters, not blank. Concurrent saves never fail; the last one wins.',
  })
  @ApiParam(SHARE_TOKEN_PARAM)
  @ApiParam({ name: 'n', schema: { type: 'integer', minimum: 1 } })
  @ApiEnvelope(SavedAnswerDto)
  @ApiErrors(ErrorCode.NOT_FOUND, ErrorCode.RATE_LIMITED)
  async save(@Param('shareToken') shareToken: string, @Param('n', PositiveIntPipe) n: number, @Body() body: SaveAnswerDto): Promise<SavedAnswerDto> {
    return { answer: await this.questions.saveAnswer(shareToken, n, body.text) };
  }

  @Post('api/v1/share/:shareToken/submit')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'submitSharedAnswers',
    summary: 'Submit: the batch becomes answered and notifyEmail is e-mailed (once per batch)',
    description:
      'Submitting again is allowed and answers 200; a batch sends at most one notification (its first submit), within daily budgets per recipient and per account, and none to a recipient who unsubscribed from the site. A skipped notification is never an error here.',
  })
  @ApiParam(SHARE_TOKEN_PARAM)
  @ApiEnvelope(SubmittedDto)
  @ApiErrors(ErrorCode.NOT_FOUND, ErrorCode.RATE_LIMITED)
  submit(@Param('shareToken') shareToken: string): Promise<SubmittedDto> {
    return this.questions.submit(shareToken);
  }
}

/** A real browser script beside this file (the build copies it verbatim: `--copy-files --extensions .ts`). */
const SHARE_SCRIPT = readFileSync(new URL('./public/share.js', import.meta.url), 'utf8');

/** The share page's script (the page's only asset of its own; the stylesheet is the pages module's). */
@Public()
@Controller('assets')
export class ShareAssetsController {
  @Get('share.js')
  @RawResponse()
  @Header('Content-Type', 'text/javascript; charset=utf-8')
  @Header('Cache-Control', 'public, max-age=300')
  @ApiExcludeEndpoint()
  shareScript(): string {
    return SHARE_SCRIPT;
  }
}
