import { Body, Controller, Get, Param, Put, Query } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { ApiEnvelope, ApiErrors, CurrentPrincipal, ErrorCode, RateLimit, UseAuth, UUID_PARAM } from '#libs/common';
import { EXPORT_TOKEN_RATE_LIMIT } from '../token-auth/export-rate-limit.js';
import type { PortfolioPrincipal, SitePrincipal } from '../token-auth/feedback-token.authenticator.js';
import { ExportQueryDto, FeedbackDataDto, FeedbackPageDto, PortfolioFeedbackPageDto, UpdateFeedbackStatusDto } from './dto/feedback.dto.js';
import { FeedbackService } from './feedback.service.js';

@ApiTags('Feedback export')
@Controller('api/v1/export')
@RateLimit(EXPORT_TOKEN_RATE_LIMIT)
export class FeedbackController {
  constructor(private readonly feedback: FeedbackService) {}

  @Get('feedback')
  @UseAuth('site-read')
  @ApiOperation({
    operationId: 'exportSiteFeedback',
    summary: "Poll the site's feedback by cursor (sk_ or wk_)",
    description:
      'Ascending (createdAt, id). Pass nextCursor as `since`; keep paging while hasMore is true, then poll about once a minute. ' +
      'Every row is returned exactly once, also while rows are being written. A portfolio cursor here is 400 CURSOR_MISMATCH.',
  })
  @ApiEnvelope(FeedbackPageDto)
  @ApiErrors(ErrorCode.CURSOR_MISMATCH, ErrorCode.INVALID_TOKEN, ErrorCode.RATE_LIMITED)
  pageOfSite(@CurrentPrincipal() principal: SitePrincipal, @Query() query: ExportQueryDto): Promise<FeedbackPageDto> {
    return this.feedback.pageOfSite(principal, query);
  }

  @Get('portfolio/feedback')
  @UseAuth('portfolio')
  @ApiOperation({
    operationId: 'exportPortfolioFeedback',
    summary: 'Poll the feedback of every site of the account by cursor (ok_ only)',
    description:
      'Ascending (createdAt, siteId, id); items carry siteSlug and siteName; `sites` lists every site of the account. ' +
      'A per-site cursor here is 400 CURSOR_MISMATCH.',
  })
  @ApiEnvelope(PortfolioFeedbackPageDto)
  @ApiErrors(ErrorCode.CURSOR_MISMATCH, ErrorCode.INVALID_TOKEN, ErrorCode.RATE_LIMITED)
  pageOfPortfolio(@CurrentPrincipal() principal: PortfolioPrincipal, @Query() query: ExportQueryDto): Promise<PortfolioFeedbackPageDto> {
    return this.feedback.pageOfPortfolio(principal, query);
  }

  @Put('feedback/:id')
  @UseAuth('site-write')
  @ApiOperation({ operationId: 'updateFeedbackStatus', summary: 'Triage: set the status of one of the site’s feedback items (wk_ only)' })
  @ApiParam({ name: 'id', format: 'uuid' })
  @ApiEnvelope(FeedbackDataDto)
  @ApiErrors(ErrorCode.INVALID_TOKEN, ErrorCode.NOT_FOUND, ErrorCode.RATE_LIMITED)
  async updateStatus(@CurrentPrincipal() principal: SitePrincipal, @Param('id', UUID_PARAM) id: string, @Body() body: UpdateFeedbackStatusDto): Promise<FeedbackDataDto> {
    return { feedback: await this.feedback.updateStatus(principal, id, body.status) };
  }
}
