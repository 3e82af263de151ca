import { ApiProperty } from '@nestjs/swagger';
import { IsIn, IsInt, IsOptional, IsString, Length, Matches, Max, MaxLength, Min } from 'class-validator';
import { FEEDBACK_TYPES, type FeedbackType } from '../../feedback/feedback-kinds.js';

/**
 * An http(s) URL with a host and no white space. The same strings as the earlier
 * `^https?:\/\/[^\s/?#]+[^\s]*$`, whose two overlapping runs backtracked quadratically
 * (78 KiB took seconds): one host character is enough, the rest is one run.
 */
export const PAGE_URL_PATTERN = /^https?:\/\/[^\s/?#]\S*$/i;

export class SubmitFeedbackDto {
  @ApiProperty({ example: 'site_Qm9vZ2xlLXNpdGUta2V5LTAx', description: 'The public key of the site (data-site-key of the widget script)' })
  @IsString()
  @Length(1, 100)
  siteKey: string;

  @ApiProperty({ enum: FEEDBACK_TYPES })
  @IsIn(FEEDBACK_TYPES)
  type: FeedbackType;

  @ApiProperty({ example: 'The pricing table is hard to read on a phone', minLength: 1, maxLength: 5000 })
  @IsString()
  @Length(1, 5000)
  @Matches(/\S/, { message: 'message must not be blank' })
  message: string;

  @ApiProperty({ example: 4, required: false, type: 'integer', nullable: true, minimum: 1, maximum: 5 })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(5)
  rating?: number | null;

  @ApiProperty({ maxLength: 2048, example: 'https://example.com/pricing', description: 'The http(s) page on which the feedback was given' })
  @IsString()
  @MaxLength(2048)
  @Matches(PAGE_URL_PATTERN, { message: 'pageUrl must be an http(s) URL' })
  pageUrl: string;
}

export class SubmittedFeedbackDto {
  @ApiProperty({ format: 'uuid' })
  id: string;
}
