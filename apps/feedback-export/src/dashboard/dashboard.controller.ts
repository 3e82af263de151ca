import { readFileSync } from 'node:fs';
import { Body, Controller, Get, Header, Inject, Param, Put, Query, Res } from '@nestjs/common';
import { ApiExcludeEndpoint, ApiOperation, ApiParam, ApiProduces, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { ApiEnvelope, ApiErrors, CurrentUserId, ErrorCode, Public, RateLimit, RawResponse, UseAuth, UUID_PARAM, WithoutDatabase } from '#libs/common';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { ExportQueryDto, FeedbackDataDto, FeedbackPageDto, UpdateFeedbackStatusDto } from '../feedback/dto/feedback.dto.js';
import { dashboardHeaders, renderDashboardPage } from './dashboard-page.js';
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

  @Put(':id')
  // Triage is quick keyboard work and harmless to repeat: generous, and served while the counters' store is down.
  @RateLimit({ bucket: 'feedback-triage', limit: 300, windowSeconds: 60, storeOutage: 'fail-open' })
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
