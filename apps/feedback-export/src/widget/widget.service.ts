import { Injectable } from '@nestjs/common';
import { AppException, assertIdempotencyKey, ErrorCode, idempotencyRequestHash } from '#libs/common';
import { FeedbackService } from '../feedback/feedback.service.js';
import type { Reporter, ReporterContext } from '../feedback/feedback.repository.js';
import { SitesService } from '../sites/sites.service.js';
import type { SubmitFeedbackDto, SubmittedFeedbackDto } from './dto/widget.dto.js';
import { verifyReporterToken } from './reporter-identity.js';

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
    const reporter = await this.reporterOf(input.userToken, site.identitySecret);
    const row = { siteId: site.id, type: input.type, message: input.message, rating: input.rating ?? null, pageUrl: input.pageUrl, reporterContext: reporterContextOf(input), reporter };
    // Without a key, as before: one prepared statement in autocommit. The reporter counts in the hash only when present (anonymous hashes unchanged).
    const hashed: unknown[] = [row.type, row.message, row.rating, row.pageUrl];
    if (reporter) hashed.push(JSON.stringify(reporter));
    const keyed = idempotencyKey === undefined ? undefined : { caller: `site:${site.id}`, key: idempotencyKey, userId: site.ownerId, requestHash: idempotencyRequestHash(hashed) };
    return this.feedback.submitFromWidget(site.ownerId, row, keyed);
  }

  /** The verified reporter of a submission with a token, null without one; a token the site cannot verify is refused (never stored unverified). */
  private async reporterOf(token: string | undefined, secret: string | null): Promise<Reporter | null> {
    if (token === undefined || token === '') return null;
    if (secret === null) {
      throw new AppException(ErrorCode.IDENTITY_TOKEN_INVALID, 'This site has no usable identity secret: its owner must create one (POST /api/v1/sites/{siteId}/identity-secret)');
    }
    return verifyReporterToken(token, secret);
  }
}
