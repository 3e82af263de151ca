import { Injectable } from '@nestjs/common';
import { AppException, ErrorCode } from '#libs/common';
import { FeedbackRepository } from '../feedback/feedback.repository.js';
import { SitesService } from '../sites/sites.service.js';
import type { SubmitFeedbackDto, SubmittedFeedbackDto } from './dto/widget.dto.js';

@Injectable()
export class WidgetService {
  constructor(
    private readonly sites: SitesService,
    private readonly feedback: FeedbackRepository,
  ) {}

  async submit(input: SubmitFeedbackDto): Promise<SubmittedFeedbackDto> {
    const site = await this.sites.findBySiteKey(input.siteKey);
    if (!site) throw new AppException(ErrorCode.NOT_FOUND, 'No site has this siteKey');
    const [id] = await this.feedback.insertMany(undefined, site.ownerId, [
      { siteId: site.id, type: input.type, message: input.message, rating: input.rating ?? null, pageUrl: input.pageUrl },
    ]);
    return { id };
  }
}
