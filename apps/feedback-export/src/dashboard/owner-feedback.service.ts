import { Injectable } from '@nestjs/common';
import { AppException, ErrorCode } from '#libs/common';
import type { FeedbackItemDto, FeedbackPageDto } from '../feedback/dto/feedback.dto.js';
import { FeedbackService, type ExportQuery } from '../feedback/feedback.service.js';
import type { SitePrincipal } from '../sites/feedback-token.authenticator.js';
import { SitesRepository } from '../sites/sites.repository.js';

/**
 * Feedback browsing and triage for the signed-in owner (the dashboard). After checking that
 * the site is the owner's, it acts with the rights of that site's write token, so paging,
 * cursors and status rules are exactly those of the export API.
 */
@Injectable()
export class OwnerFeedbackService {
  constructor(
    private readonly feedback: FeedbackService,
    private readonly sites: SitesRepository,
  ) {}

  async page(ownerId: string, siteId: string, query: ExportQuery): Promise<FeedbackPageDto> {
    return this.feedback.pageOfSite(await this.actAsSite(ownerId, siteId), query);
  }

  async updateStatus(ownerId: string, siteId: string, feedbackId: string, status: string): Promise<FeedbackItemDto> {
    return this.feedback.updateStatus(await this.actAsSite(ownerId, siteId), feedbackId, status);
  }

  private async actAsSite(ownerId: string, siteId: string): Promise<SitePrincipal> {
    if (!(await this.sites.findOwned(ownerId, siteId))) throw new AppException(ErrorCode.NOT_FOUND, 'No such site');
    return { kind: 'site', siteId, ownerId, scope: 'write', tokenId: `owner:${ownerId}` };
  }
}
