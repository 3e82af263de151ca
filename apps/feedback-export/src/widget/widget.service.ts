import { Injectable } from '@nestjs/common';
import { AppException, assertIdempotencyKey, ErrorCode, idempotencyRequestHash } from '#libs/common';
import { FeedbackService } from '../feedback/feedback.service.js';
import type { ReporterContext } from '../feedback/feedback.repository.js';
import { SitesService } from '../sites/sites.service.js';
import type { SubmitFeedbackDto, SubmittedFeedbackDto } from './dto/widget.dto.js';

export interface SubmitOutcome {
  data: SubmittedFeedbackDto;
  /** True when an earlier submission with the same Idempotency-Key is answered again. */
  replayed: boolean;
}

/** Only the known fields, only when given (whitelist validation drops the rest); null when none is left. */
function reporterContextOf(input: SubmitFeedbackDto): ReporterContext | null {
  const given = input.reporterContext;
  if (!given) return null;
  const context: ReporterContext = {};
  for (const key of ['browser', 'os', 'viewport', 'language', 'referrer'] as const) if (typeof given[key] === 'string' && given[key] !== '') context[key] = given[key];
  return Object.keys(context).length > 0 ? context : null;
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
    const row = { siteId: site.id, type: input.type, message: input.message, rating: input.rating ?? null, pageUrl: input.pageUrl, reporterContext: reporterContextOf(input) };
    // Without a key, as before: one prepared statement in autocommit.
    const keyed = idempotencyKey === undefined ? undefined : { caller: `site:${site.id}`, key: idempotencyKey, userId: site.ownerId, requestHash: idempotencyRequestHash([row.type, row.message, row.rating, row.pageUrl]) };
    return this.feedback.submitFromWidget(site.ownerId, row, keyed);
  }
}
