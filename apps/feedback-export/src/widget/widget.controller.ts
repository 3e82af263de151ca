import { readFileSync } from 'node:fs';
import { Body, Controller, Get, Header, Headers, Post, Res } from '@nestjs/common';
import { ApiHeader, ApiOperation, ApiProduces, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { ApiEnvelope, ApiErrors, ErrorCode, IDEMPOTENT_REPLAYED_HEADER, Public, RateLimit, RawResponse, type RateLimitOptions, WithoutDatabase } from '#libs/common';
import { SubmitFeedbackDto, SubmittedFeedbackDto } from './dto/widget.dto.js';
import { WidgetService } from './widget.service.js';

/**
 * The embeddable widget, a real browser script beside this file (copied verbatim into dist by the
 * build). The same bytes for every site: no server value is interpolated.
 */
const WIDGET_SCRIPT = readFileSync(new URL('./public/widget.js', import.meta.url), 'utf8');

/** Per client IP: generous for people, tight for scripts. */
/** Per client IP; fails open: losing customers' feedback during a Redis outage costs more than the spam it lets in. */
const WIDGET_RATE_LIMIT: RateLimitOptions = { bucket: 'widget-feedback', limit: 20, windowSeconds: 60, storeOutage: 'fail-open' };

/** The widget's routes, called from any site: createHttpApp opens them to every origin (openCorsPaths). */
export const WIDGET_OPEN_CORS_PATHS = ['/widget.js', '/api/v1/widget/feedback'];

/** The public widget: its script and the endpoint it posts to (CORS-open, see WIDGET_OPEN_CORS_PATHS). */
@ApiTags('Widget')
@Public()
@Controller()
export class WidgetController {
  constructor(private readonly widget: WidgetService) {}

  @Get('widget.js')
  @RawResponse()
  @WithoutDatabase()
  @Header('Content-Type', 'text/javascript; charset=utf-8')
  @Header('Cache-Control', 'public, max-age=300')
  @ApiOperation({
    operationId: 'getWidgetScript',
    summary: 'The embeddable widget script',
    description:
      'Embed it with a script element whose `src` is `{feedback_base_url}/widget.js`, with the attribute `data-site-key="site_…"` and `async`. ' +
      'Dependency-free; renders in a shadow root.',
  })
  @ApiProduces('text/javascript')
  @ApiResponse({
    status: 200,
    description: 'JavaScript (dependency-free, one file)',
    content: { 'text/javascript': { schema: { type: 'string' }, example: "(function () { 'use strict'; /* the feedback widget */ })();" } },
  })
  script(): string {
    return WIDGET_SCRIPT;
  }

  @Post('api/v1/widget/feedback')
  @RateLimit(WIDGET_RATE_LIMIT)
  @ApiOperation({
    operationId: 'submitWidgetFeedback',
    summary: 'Submit feedback from the widget (public, any origin, rate limited per IP)',
    description:
      'With an `Idempotency-Key` header, a repeat of the same submission with the same key (per site, within 24 hours) ' +
      'answers the first response again (201, same body, header `Idempotent-Replayed: true`) and stores nothing. ' +
      'The same key with a different body is 422 IDEMPOTENCY_KEY_REUSED. Concurrent requests with one key store one item.',
  })
  @ApiHeader({ name: 'Idempotency-Key', required: false, description: '1..255 visible ASCII characters, e.g. a UUID (the widget sends one per submission)' })
  @ApiEnvelope(SubmittedFeedbackDto, { status: 201 })
  @ApiErrors(ErrorCode.NOT_FOUND, ErrorCode.IDENTITY_TOKEN_INVALID, ErrorCode.RATE_LIMITED, ErrorCode.IDEMPOTENCY_KEY_REUSED)
  async submit(
    @Body() body: SubmitFeedbackDto,
    @Headers('idempotency-key') idempotencyKey: string | undefined,
    @Res({ passthrough: true }) response: Response,
  ): Promise<SubmittedFeedbackDto> {
    const outcome = await this.widget.submit(body, idempotencyKey);
    if (outcome.replayed) response.setHeader(IDEMPOTENT_REPLAYED_HEADER, 'true');
    return outcome.data;
  }
}
