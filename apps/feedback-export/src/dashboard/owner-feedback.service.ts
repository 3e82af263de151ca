import { Readable } from 'node:stream';
import { Injectable } from '@nestjs/common';
import type { FeedbackItemDto, FeedbackPageDto, UpdateFeedbackStatusDto } from '../feedback/dto/feedback.dto.js';
import { FeedbackService, type ExportQuery } from '../feedback/feedback.service.js';
import type { TriageFilter } from '../feedback/feedback.repository.js';
import { SitesService } from '../sites/sites.service.js';
import { ownerAccess } from '../token-auth/site-access.js';
import { TRIAGE_LIMITS, type NewFeedbackCountsDto, type TriageFilterDto, type TriagePageDto, type TriageQueryDto } from './dto/triage.dto.js';
import { CSV_HEADER, feedbackCsvLine } from './feedback-csv.js';

function triageFilter(query: TriageFilterDto): Omit<TriageFilter, 'limit' | 'offset'> {
  return { type: query.type, status: query.status, q: query.q?.trim() || undefined, from: query.from, to: query.to, newestFirst: query.order !== 'oldest' };
}

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

  /** The triage view: newest first unless asked otherwise, searched and filtered, by offset. */
  async triage(ownerId: string, siteId: string, query: TriageQueryDto): Promise<TriagePageDto> {
    await this.sites.requireOwned(ownerId, siteId);
    return this.feedback.triagePage(ownerAccess(ownerId, siteId), { ...triageFilter(query), limit: query.limit ?? TRIAGE_LIMITS.defaultPageSize, offset: query.offset ?? 0 });
  }

  /** The triage filter's items as CSV (header first, at most TRIAGE_LIMITS.csvMaxRows rows), streamed in chunks. */
  async csv(ownerId: string, siteId: string, query: TriageFilterDto): Promise<Readable> {
    await this.sites.requireOwned(ownerId, siteId);
    const chunks = this.feedback.triageRowsInChunks(ownerAccess(ownerId, siteId), triageFilter(query), TRIAGE_LIMITS.csvMaxRows);
    return Readable.from(
      (async function* () {
        yield CSV_HEADER;
        for await (const rows of chunks) yield rows.map(feedbackCsvLine).join('');
      })(),
    );
  }

  async updateStatusMany(ownerId: string, siteId: string, ids: string[], status: 'triaged' | 'resolved'): Promise<{ updated: string[] }> {
    await this.sites.requireOwned(ownerId, siteId);
    return { updated: await this.feedback.updateStatusMany(ownerAccess(ownerId, siteId), ids, status) };
  }

  /** Items with status new on each of the owner's sites (0 included). */
  async newCounts(ownerId: string): Promise<NewFeedbackCountsDto> {
    const [sites, counts] = [await this.sites.listEntries(ownerId), await this.feedback.countNewBySite(ownerId)];
    const bySite = new Map(counts.map((c) => [c.siteId, c.count]));
    return { sites: sites.map((site) => ({ siteId: site.id, count: bySite.get(site.id) ?? 0 })) };
  }
}
