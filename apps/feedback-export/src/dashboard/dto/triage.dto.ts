import { ApiProperty } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsIn, IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min } from 'class-validator';
import { QueryInteger, UUID_PATTERN } from '#libs/common';
import { FeedbackItemDto, FeedbackStatusFilter, FeedbackTypeFilter } from '../../feedback/dto/feedback.dto.js';
import type { FeedbackStatus, FeedbackType } from '../../feedback/feedback-kinds.js';

/** The owner's triage view: limits of one page, of a bulk change and of a CSV download. */
export const TRIAGE_LIMITS = { defaultPageSize: 50, maxPageSize: 200, maxOffset: 10_000, maxSearchLength: 200, bulkMaxItems: 200, csvMaxRows: 10_000 } as const;

const DAY = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/;

/** Filters shared by the triage page and its CSV download. */
export class TriageFilterDto {
  @ApiProperty({ required: false, maxLength: TRIAGE_LIMITS.maxSearchLength, example: 'coupon', description: 'Words to find in the message or the page URL (case-insensitive, taken literally)' })
  @IsOptional()
  @IsString()
  @MaxLength(TRIAGE_LIMITS.maxSearchLength)
  q?: string;

  @FeedbackTypeFilter()
  type?: FeedbackType;

  @FeedbackStatusFilter()
  status?: FeedbackStatus;

  @ApiProperty({ required: false, format: 'date', example: '2026-11-01', description: 'Sent on or after this UTC day' })
  @IsOptional()
  @MaxLength(10, { message: 'from must be a date YYYY-MM-DD' })
  @Matches(DAY, { message: 'from must be a date YYYY-MM-DD' })
  from?: string;

  @ApiProperty({ required: false, format: 'date', example: '2026-11-30', description: 'Sent on or before this UTC day' })
  @IsOptional()
  @MaxLength(10, { message: 'to must be a date YYYY-MM-DD' })
  @Matches(DAY, { message: 'to must be a date YYYY-MM-DD' })
  to?: string;

  @ApiProperty({ required: false, enum: ['newest', 'oldest'], default: 'newest' })
  @IsOptional()
  @IsIn(['newest', 'oldest'])
  order?: 'newest' | 'oldest';
}

export class TriageQueryDto extends TriageFilterDto {
  @ApiProperty({ required: false, type: 'integer', minimum: 1, maximum: TRIAGE_LIMITS.maxPageSize, default: TRIAGE_LIMITS.defaultPageSize })
  @IsOptional()
  @QueryInteger({ digits: 6 })
  @IsInt()
  @Min(1)
  @Max(TRIAGE_LIMITS.maxPageSize)
  limit?: number;

  @ApiProperty({ required: false, type: 'integer', minimum: 0, maximum: TRIAGE_LIMITS.maxOffset, default: 0, description: 'Rows to skip (the next page: offset + limit)' })
  @IsOptional()
  @QueryInteger({ digits: 6 })
  @IsInt()
  @Min(0)
  @Max(TRIAGE_LIMITS.maxOffset)
  offset?: number;
}

export class TriagePageDto {
  @ApiProperty({ type: [FeedbackItemDto] })
  feedback: FeedbackItemDto[];

  @ApiProperty({ type: 'integer', example: 42, description: 'How many items match the filter' })
  total: number;

  @ApiProperty({ description: 'True when more matching items follow this page' })
  hasMore: boolean;
}

export class BulkStatusDto {
  @ApiProperty({ type: [String], format: 'uuid', minItems: 1, maxItems: TRIAGE_LIMITS.bulkMaxItems, description: 'Feedback ids of this site' })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(TRIAGE_LIMITS.bulkMaxItems)
  @MaxLength(36, { each: true, message: 'each id must be a UUID' })
  @Matches(UUID_PATTERN, { each: true, message: 'each id must be a UUID' })
  ids: string[];

  @ApiProperty({ enum: ['triaged', 'resolved'] })
  @IsIn(['triaged', 'resolved'])
  status: 'triaged' | 'resolved';
}

export class BulkStatusResultDto {
  @ApiProperty({ type: [String], format: 'uuid', description: 'The ids that were changed; ids that are not feedback of this site are left out' })
  updated: string[];
}

export class NewFeedbackCountDto {
  @ApiProperty({ format: 'uuid' })
  siteId: string;

  @ApiProperty({ type: 'integer', example: 3, description: 'Items with status new' })
  count: number;
}

export class NewFeedbackCountsDto {
  @ApiProperty({ type: [NewFeedbackCountDto], description: 'One entry per site of the account, 0 included' })
  sites: NewFeedbackCountDto[];
}
