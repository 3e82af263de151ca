import { Injectable } from '@nestjs/common';
import type { FeedbackItemDto, FeedbackPageDto, UpdateFeedbackStatusDto } from '../feedback/dto/feedback.dto.js';
import { FeedbackService, type ExportQuery } from '../feedback/feedback.service.js';
import { SitesService } from '../sites/sites.service.js';
import { ownerAccess } from '../token-auth/site-access.js';

/**
 * Feedback browsing and triage for the signed-in owner (the dashboard). After checking that
 * the site is the owner's, it calls the export service with the owner's access to the site,
 * so paging, cursors and status rules are exactly those of the export API.
 */
@Injectable()
export class OwnerFeedbackService {
  constructor(
    private readonly feedback: FeedbackService,
    private readonly sites: SitesService,
  ) {}

  async page(ownerId: string, siteId: string, query: ExportQuery): Promise<FeedbackPageDto> {
    await this.sites.requireOwned(ownerId, siteId);
    return this.feedback.pageOfSite(ownerAccess(ownerId, siteId), query);
  }

  async updateStatus(ownerId: string, siteId: string, feedbackId: string, status: UpdateFeedbackStatusDto['status']): Promise<FeedbackItemDto> {
    await this.sites.requireOwned(ownerId, siteId);
    return this.feedback.updateStatus(ownerAccess(ownerId, siteId), feedbackId, status);
  }
}
