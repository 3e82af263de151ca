import { readFileSync } from 'node:fs';
import { Body, Controller, Get, Header, HttpCode, Inject, Param, Post, Put, Query, Res } from '@nestjs/common';
import { ApiExcludeEndpoint, ApiOperation, ApiParam, ApiProduces, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { ApiEnvelope, ApiErrors, CurrentUserId, ErrorCode, Public, RateLimit, RawResponse, UseAuth, UUID_PARAM, WithoutDatabase, type RateLimitOptions } from '#libs/common';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { ExportQueryDto, FeedbackDataDto, FeedbackPageDto, UpdateFeedbackStatusDto } from '../feedback/dto/feedback.dto.js';
import { dashboardHeaders, renderDashboardPage } from './dashboard-page.js';
import { BulkStatusDto, BulkStatusResultDto, NewFeedbackCountsDto, TRIAGE_LIMITS, TriageFilterDto, TriagePageDto, TriageQueryDto } from './dto/triage.dto.js';
import { OwnerFeedbackService } from './owner-feedback.service.js';

/** A real browser script beside this file (the build copies it verbatim: `--copy-files --extensions .ts`). */
const DASHBOARD_SCRIPT = readFileSync(new URL('./public/dashboard.js', import.meta.url), 'utf8');

/** The owner dashboard page and its script. */
@ApiTags('Dashboard')
@Public()
@Controller()
export class DashboardController {
  private readonly html: string;
  private readonly headers: Record<string, string>;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.html = renderDashboardPage(config.publicBaseUrl);
    this.headers = dashboardHeaders(config.publicBaseUrl);
  }

  @Get('dashboard')
  @RawResponse()
  @WithoutDatabase()
  @ApiOperation({
    operationId: 'getDashboard',
    summary: 'The owner dashboard (HTML): sign in, sites and token rotation, feedback triage, question batches',
    description: 'Signs in with the shared account (POST /api/v1/auth/login of the todo service at PUBLIC_BASE_URL) and calls the owner routes with the JWT.',
  })
  @ApiProduces('text/html')
  @ApiResponse({
    status: 200,
    description: 'HTML page',
    content: { 'text/html': { schema: { type: 'string' }, example: '<!doctype html><html lang="en"><head><title>Feedback dashboard</title>…</html>' } },
  })
  page(@Res() response: Response): void {
    response.set(this.headers).status(200).send(this.html);
  }

  @Get('assets/dashboard.js')
  @RawResponse()
  @Header('Content-Type', 'text/javascript; charset=utf-8')
  @Header('Cache-Control', 'public, max-age=300')
  @ApiExcludeEndpoint()
  script(): string {
    return DASHBOARD_SCRIPT;
  }
}

/** Triage is quick keyboard work and harmless to repeat: generous, and served while the counters' store is down. */
const FEEDBACK_TRIAGE_RATE_LIMIT: RateLimitOptions = { bucket: 'feedback-triage', limit: 300, windowSeconds: 60, storeOutage: 'fail-open' };
/** Searching and filtering as an owner types and clicks. */
const FEEDBACK_SEARCH_RATE_LIMIT: RateLimitOptions = { bucket: 'feedback-search', limit: 120, windowSeconds: 60, storeOutage: 'fail-open' };
/** A CSV download reads up to TRIAGE_LIMITS.csvMaxRows rows: a few a minute. */
const FEEDBACK_CSV_RATE_LIMIT: RateLimitOptions = { bucket: 'feedback-csv', limit: 10, windowSeconds: 60, storeOutage: 'fail-closed' };

/** Feedback of one of the owner's sites, for the dashboard (JWT). */
@ApiTags('Dashboard')
@UseAuth('jwt')
@Controller('api/v1/sites/:siteId/feedback')
export class OwnerFeedbackController {
  constructor(private readonly feedback: OwnerFeedbackService) {}

  @Get()
  @ApiOperation({ operationId: 'listSiteFeedback', summary: "Page through a site's feedback by cursor (owner); same paging as the export" })
  @ApiParam({ name: 'siteId', format: 'uuid' })
  @ApiEnvelope(FeedbackPageDto)
  @ApiErrors(ErrorCode.AUTH_REQUIRED, ErrorCode.NOT_FOUND, ErrorCode.CURSOR_MISMATCH)
  page(@CurrentUserId() ownerId: string, @Param('siteId', UUID_PARAM) siteId: string, @Query() query: ExportQueryDto): Promise<FeedbackPageDto> {
    return this.feedback.page(ownerId, siteId, query);
  }

  @Get('search')
  @RateLimit(FEEDBACK_SEARCH_RATE_LIMIT)
  @ApiOperation({
    operationId: 'searchSiteFeedback',
    summary: "The owner's triage view of a site: newest first (or oldest), search in message and page URL, type/status/date filters, offset paging",
    description: `At most ${TRIAGE_LIMITS.maxPageSize} items a page and an offset up to ${TRIAGE_LIMITS.maxOffset}; \`total\` counts every match.`,
  })
  @ApiParam({ name: 'siteId', format: 'uuid' })
  @ApiEnvelope(TriagePageDto)
  @ApiErrors(ErrorCode.AUTH_REQUIRED, ErrorCode.NOT_FOUND, ErrorCode.RATE_LIMITED)
  search(@CurrentUserId() ownerId: string, @Param('siteId', UUID_PARAM) siteId: string, @Query() query: TriageQueryDto): Promise<TriagePageDto> {
    return this.feedback.triage(ownerId, siteId, query);
  }

  @Get('export.csv')
  @RawResponse()
  @RateLimit(FEEDBACK_CSV_RATE_LIMIT)
  @ApiOperation({
    operationId: 'downloadSiteFeedbackCsv',
    summary: "The triage filter's feedback as CSV (owner): same filters and order as the search, no paging",
    description:
      `RFC 4180, UTF-8, a header line, at most ${TRIAGE_LIMITS.csvMaxRows} rows (the first of the chosen order). Columns: id, createdAt, type, status, rating, message, pageUrl, ` +
      "browser, os, viewport, language, referrer. Every cell is quoted; a text starting with =, +, -, @, tab or carriage return starts with an apostrophe (no spreadsheet formulas).",
  })
  @ApiParam({ name: 'siteId', format: 'uuid' })
  @ApiProduces('text/csv')
  @ApiResponse({ status: 200, description: 'CSV file (attachment)', content: { 'text/csv': { schema: { type: 'string' }, example: '"id","createdAt","type",…\r\n' } } })
  @ApiErrors(ErrorCode.AUTH_REQUIRED, ErrorCode.NOT_FOUND, ErrorCode.RATE_LIMITED)
  async csv(@CurrentUserId() ownerId: string, @Param('siteId', UUID_PARAM) siteId: string, @Query() query: TriageFilterDto, @Res() response: Response): Promise<void> {
    const stream = await this.feedback.csv(ownerId, siteId, query);
    response.status(200).set({ 'Content-Type': 'text/csv; charset=utf-8', 'Content-Disposition': 'attachment; filename="feedback.csv"', 'Cache-Control': 'no-store' });
    stream.pipe(response);
  }

  @Post('status')
  @HttpCode(200)
  @RateLimit(FEEDBACK_TRIAGE_RATE_LIMIT)
  @ApiOperation({ operationId: 'updateSiteFeedbackStatusBulk', summary: `Triage up to ${TRIAGE_LIMITS.bulkMaxItems} feedback items of the site at once (owner): triaged or resolved` })
  @ApiParam({ name: 'siteId', format: 'uuid' })
  @ApiEnvelope(BulkStatusResultDto)
  @ApiErrors(ErrorCode.AUTH_REQUIRED, ErrorCode.NOT_FOUND, ErrorCode.RATE_LIMITED)
  updateStatusMany(@CurrentUserId() ownerId: string, @Param('siteId', UUID_PARAM) siteId: string, @Body() body: BulkStatusDto): Promise<BulkStatusResultDto> {
    return this.feedback.updateStatusMany(ownerId, siteId, body.ids, body.status);
  }

  @Put(':id')
  @RateLimit(FEEDBACK_TRIAGE_RATE_LIMIT)
  @ApiOperation({ operationId: 'updateSiteFeedbackStatus', summary: 'Triage one feedback item of the site (owner): triaged or resolved' })
  @ApiParam({ name: 'siteId', format: 'uuid' })
  @ApiParam({ name: 'id', format: 'uuid' })
  @ApiEnvelope(FeedbackDataDto)
  @ApiErrors(ErrorCode.AUTH_REQUIRED, ErrorCode.NOT_FOUND)
  async updateStatus(
    @CurrentUserId() ownerId: string,
    @Param('siteId', UUID_PARAM) siteId: string,
    @Param('id', UUID_PARAM) id: string,
    @Body() body: UpdateFeedbackStatusDto,
  ): Promise<FeedbackDataDto> {
    return { feedback: await this.feedback.updateStatus(ownerId, siteId, id, body.status) };
  }
}

/** Counts across the owner's sites, for the dashboard's site cards (JWT). */
@ApiTags('Dashboard')
@UseAuth('jwt')
@Controller('api/v1/feedback')
export class OwnerFeedbackCountsController {
  constructor(private readonly feedback: OwnerFeedbackService) {}

  @Get('new-counts')
  @RateLimit(FEEDBACK_SEARCH_RATE_LIMIT)
  @ApiOperation({ operationId: 'countNewFeedback', summary: 'How many feedback items with status new each of your sites has (owner)' })
  @ApiEnvelope(NewFeedbackCountsDto)
  @ApiErrors(ErrorCode.AUTH_REQUIRED, ErrorCode.RATE_LIMITED)
  newCounts(@CurrentUserId() ownerId: string): Promise<NewFeedbackCountsDto> {
    return this.feedback.newCounts(ownerId);
  }
}
