import { ApiProperty } from '@nestjs/swagger';
import { IsIn, IsInt, IsOptional, IsString, Length, Matches, Max, MaxLength, Min } from 'class-validator';
import { FEEDBACK_TYPES, type FeedbackType } from '../../feedback/feedback-kinds.js';

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
  @Matches(/^https?:\/\/[^\s/?#]+[^\s]*$/i, { message: 'pageUrl must be an http(s) URL' })
  pageUrl: string;
}

export class SubmittedFeedbackDto {
  @ApiProperty({ format: 'uuid' })
  id: string;
}
