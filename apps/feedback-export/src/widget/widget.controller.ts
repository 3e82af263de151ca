import { Body, Controller, Get, Header, Post } from '@nestjs/common';
import { ApiOperation, ApiProduces, ApiResponse, ApiTags } from '@nestjs/swagger';
import { ApiEnvelope, ApiErrors, ErrorCode, Public, RateLimit, RawResponse } from '#libs/common';
import { SubmitFeedbackDto, SubmittedFeedbackDto } from './dto/widget.dto.js';
import { WIDGET_SCRIPT } from './widget-script.js';
import { WidgetService } from './widget.service.js';

/** Per client IP: generous for people, tight for scripts. */
export const WIDGET_RATE_LIMIT = { bucket: 'widget-feedback', limit: 20, windowSeconds: 60 };

/** The public widget: its script and the endpoint it posts to (CORS-open, see OPEN_CORS_PATHS). */
@ApiTags('Widget')
@Public()
@Controller()
export class WidgetController {
  constructor(private readonly widget: WidgetService) {}

  @Get('widget.js')
  @RawResponse()
  @Header('Content-Type', 'text/javascript; charset=utf-8')
  @Header('Cache-Control', 'public, max-age=300')
  @ApiOperation({
    operationId: 'getWidgetScript',
    summary: 'The embeddable widget script',
    description: 'Embed with `<script src="{feedback_base_url}/widget.js" data-site-key="site_…" async></script>`.',
  })
  @ApiProduces('text/javascript')
  @ApiResponse({ status: 200, description: 'JavaScript', schema: { type: 'string' } })
  script(): string {
    return WIDGET_SCRIPT;
  }

  @Post('api/v1/widget/feedback')
  @RateLimit(WIDGET_RATE_LIMIT)
  @ApiOperation({ operationId: 'submitWidgetFeedback', summary: 'Submit feedback from the widget (public, any origin, rate limited per IP)' })
  @ApiEnvelope(SubmittedFeedbackDto, { status: 201 })
  @ApiErrors(ErrorCode.NOT_FOUND, ErrorCode.RATE_LIMITED)
  submit(@Body() body: SubmitFeedbackDto): Promise<SubmittedFeedbackDto> {
    return this.widget.submit(body);
  }
}
