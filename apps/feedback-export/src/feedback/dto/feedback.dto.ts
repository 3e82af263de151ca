import { ApiProperty } from '@nestjs/swagger';
import { IsIn, IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { QueryInteger } from '#libs/common';
import { FEEDBACK_STATUSES, FEEDBACK_TYPES, type FeedbackStatus, type FeedbackType } from '../feedback-kinds.js';
import type { FeedbackRow } from '../feedback.repository.js';

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 200;

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

  @ApiProperty({ required: false, enum: FEEDBACK_TYPES })
  @IsOptional()
  @IsIn(FEEDBACK_TYPES)
  type?: FeedbackType;

  @ApiProperty({ required: false, enum: FEEDBACK_STATUSES })
  @IsOptional()
  @IsIn(FEEDBACK_STATUSES)
  status?: FeedbackStatus;
}

export class UpdateFeedbackStatusDto {
  @ApiProperty({ enum: ['triaged', 'resolved'] })
  @IsIn(['triaged', 'resolved'])
  status: 'triaged' | 'resolved';
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
}

export function toFeedbackItemDto(row: FeedbackRow): FeedbackItemDto {
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
