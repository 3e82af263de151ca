import { Injectable } from '@nestjs/common';
import { AppException, assertIdempotencyKey, ErrorCode, idempotencyRequestHash } from '#libs/common';
import { FeedbackService } from '../feedback/feedback.service.js';
import { SitesService } from '../sites/sites.service.js';
import type { SubmitFeedbackDto, SubmittedFeedbackDto } from './dto/widget.dto.js';

export interface SubmitOutcome {
  data: SubmittedFeedbackDto;
  /** True when an earlier submission with the same Idempotency-Key is answered again. */
  replayed: boolean;
}

@Injectable()
export class WidgetService {
  constructor(
    private readonly sites: SitesService,
    private readonly feedback: FeedbackService,
  ) {}

  /**
   * Stores one submission. With an Idempotency-Key (the todos' mechanism, keys scoped per site:
   * caller `site:<site id>`), a repeat with the same key and body answers the first id again and
   * stores nothing; the same key with another body is 422 IDEMPOTENCY_KEY_REUSED.
   */
  async submit(input: SubmitFeedbackDto, idempotencyKey?: string): Promise<SubmitOutcome> {
    assertIdempotencyKey(idempotencyKey);
    const site = await this.sites.findBySiteKey(input.siteKey);
    if (!site) throw new AppException(ErrorCode.NOT_FOUND, 'No site has this siteKey');
    const row = { siteId: site.id, type: input.type, message: input.message, rating: input.rating ?? null, pageUrl: input.pageUrl };
    // Without a key, as before: one prepared statement in autocommit.
    const keyed = idempotencyKey === undefined ? undefined : { caller: `site:${site.id}`, key: idempotencyKey, userId: site.ownerId, requestHash: idempotencyRequestHash([row.type, row.message, row.rating, row.pageUrl]) };
    return this.feedback.submitFromWidget(site.ownerId, row, keyed);
  }
}
