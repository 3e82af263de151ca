import { applyDecorators } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { IsIn, IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { QueryInteger } from '#libs/common';
import { FEEDBACK_STATUSES, FEEDBACK_TYPES, type FeedbackStatus, type FeedbackType } from '../feedback-kinds.js';
import type { FeedbackRow, Reporter, ReporterContext } from '../feedback.repository.js';

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 200;

/** The optional `type` filter of a feedback listing (export, triage). */
export function FeedbackTypeFilter(): PropertyDecorator {
  return applyDecorators(ApiProperty({ required: false, enum: FEEDBACK_TYPES }), IsOptional(), IsIn(FEEDBACK_TYPES));
}

/** The optional `status` filter of a feedback listing (export, triage). */
export function FeedbackStatusFilter(): PropertyDecorator {
  return applyDecorators(ApiProperty({ required: false, enum: FEEDBACK_STATUSES }), IsOptional(), IsIn(FEEDBACK_STATUSES));
}

export class ExportQueryDto {
  @ApiProperty({ example: 'eyJ2IjoxLCJrIjoicyJ9.c2lnbmF0dXJl', required: false, description: 'The nextCursor of the previous page; omit on the first call to start at the oldest row' })
  @IsOptional()
  @IsString()
  @MaxLength(1000)
  since?: string;

  @ApiProperty({ required: false, type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE })
  @IsOptional()
  @QueryInteger({ digits: 6 })
  @IsInt()
  @Min(1)
  @Max(MAX_PAGE_SIZE)
  limit?: number;

  @FeedbackTypeFilter()
  type?: FeedbackType;

  @FeedbackStatusFilter()
  status?: FeedbackStatus;
}

export class UpdateFeedbackStatusDto {
  @ApiProperty({ enum: ['triaged', 'resolved'] })
  @IsIn(['triaged', 'resolved'])
  status: 'triaged' | 'resolved';
}

/** The reporter's browser as the widget describes it: each field only when the browser told it. */
export class ReporterContextDto implements ReporterContext {
  @ApiProperty({ required: false, example: 'Firefox 133', maxLength: 64, description: 'Browser name and major version, from the user agent' })
  browser?: string;

  @ApiProperty({ required: false, example: 'Android 15', maxLength: 64, description: 'Operating system, from the user agent' })
  os?: string;

  @ApiProperty({ required: false, example: '390x844', maxLength: 16, description: 'Viewport width x height in CSS pixels when the feedback was sent' })
  viewport?: string;

  @ApiProperty({ required: false, example: 'de-DE', maxLength: 35, description: "The browser's preferred language (BCP 47)" })
  language?: string;

  @ApiProperty({ required: false, example: 'https://search.example/', maxLength: 2048, description: 'The page that linked to the one the feedback was sent on, without its query or fragment' })
  referrer?: string;
}

/** Who sent the feedback, as the site's server vouched for it (a verified signed token): only when one was sent. */
export class ReporterDto implements Reporter {
  @ApiProperty({ example: 'user_8231', maxLength: 128, description: "The host site's own user id (the token's `sub`)" })
  id: string;

  @ApiProperty({ required: false, example: 'ada@example.com', maxLength: 254, description: 'Present when the token carried one' })
  email?: string;

  @ApiProperty({ required: false, example: 'Ada Lovelace', maxLength: 128, description: 'Present when the token carried one' })
  name?: string;
}

export class FeedbackItemDto {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ format: 'uuid' })
  siteId: string;

  @ApiProperty({ enum: FEEDBACK_TYPES })
  type: FeedbackType;

  @ApiProperty({ example: 'The pricing table is hard to read on a phone' })
  message: string;

  @ApiProperty({ example: 4, type: 'integer', nullable: true, minimum: 1, maximum: 5 })
  rating: number | null;

  @ApiProperty({ example: 'https://example.com/pricing', description: 'Page on which the feedback was given' })
  pageUrl: string;

  @ApiProperty({ enum: FEEDBACK_STATUSES })
  status: FeedbackStatus;

  @ApiProperty({ example: '2026-11-21 07:15:42', description: 'UTC, `YYYY-MM-DD HH:MM:SS`' })
  createdAt: string;

  @ApiProperty({
    required: false,
    type: ReporterContextDto,
    description: "The reporter's browser, OS, viewport, language and referrer as the widget captured them (never cookies or page content). Absent when the submission carried none.",
  })
  reporterContext?: ReporterContextDto;

  @ApiProperty({
    required: false,
    type: ReporterDto,
    description: "The reporter the site's own server signed for (widget `data-user-token`, verified with the site's identity secret). Absent for anonymous feedback.",
  })
  reporter?: ReporterDto;
}

export function toFeedbackItemDto(row: FeedbackRow): FeedbackItemDto {
  const item: FeedbackItemDto = toPublishedItem(row);
  // Additive: present only when captured, so items without them keep their published shape byte for byte.
  if (row.reporterContext) item.reporterContext = row.reporterContext;
  if (row.reporter) item.reporter = row.reporter;
  return item;
}

function toPublishedItem(row: FeedbackRow): FeedbackItemDto {
  return {
    id: row.id,
    siteId: row.siteId,
    type: row.type,
    message: row.message,
    rating: row.rating === null ? null : Number(row.rating),
    pageUrl: row.pageUrl,
    status: row.status,
    createdAt: row.createdAt,
  };
}

export class PortfolioFeedbackItemDto extends FeedbackItemDto {
  @ApiProperty({ example: 'marketing-site', description: 'Stable, filesystem-safe, unique within the account' })
  siteSlug: string;

  @ApiProperty({ example: 'Marketing site' })
  siteName: string;
}

export function toPortfolioItemDto(row: FeedbackRow): PortfolioFeedbackItemDto {
  return { ...toFeedbackItemDto(row), siteSlug: row.siteSlug!, siteName: row.siteName! };
}

export class SiteEntryDto {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ example: 'marketing-site' })
  slug: string;

  @ApiProperty({ example: 'Marketing site' })
  name: string;
}

export class FeedbackPageDto {
  @ApiProperty({ type: [FeedbackItemDto] })
  feedback: FeedbackItemDto[];

  @ApiProperty({ example: 'eyJ2IjoxLCJrIjoicyJ9.c2lnbmF0dXJl', description: 'Always present: pass it as `since` on the next call. An empty page returns the cursor it was given.' })
  nextCursor: string;

  @ApiProperty({ description: 'True when more rows are available right now; false when caught up (poll again in about a minute)' })
  hasMore: boolean;
}

export class PortfolioFeedbackPageDto {
  @ApiProperty({ type: [PortfolioFeedbackItemDto] })
  feedback: PortfolioFeedbackItemDto[];

  @ApiProperty({ example: 'eyJ2IjoxLCJrIjoicyJ9.c2lnbmF0dXJl', description: 'Always present: pass it as `since` on the next call. Not interchangeable with a per-site cursor.' })
  nextCursor: string;

  @ApiProperty()
  hasMore: boolean;

  @ApiProperty({ type: [SiteEntryDto], description: 'Every site of the account, including sites without feedback' })
  sites: SiteEntryDto[];
}

export class FeedbackDataDto {
  @ApiProperty({ type: FeedbackItemDto })
  feedback: FeedbackItemDto;
}
