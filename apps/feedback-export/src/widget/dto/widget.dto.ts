import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsObject, IsOptional, IsString, Length, Matches, Max, MaxLength, Min, ValidateNested } from 'class-validator';
import { FEEDBACK_TYPES, type FeedbackType } from '../../feedback/feedback-kinds.js';
import { REPORTER_LIMITS } from '../reporter-identity.js';

/**
 * An http(s) URL with a host and no white space. The same strings as the earlier
 * `^https?:\/\/[^\s/?#]+[^\s]*$`, whose two overlapping runs backtracked quadratically
 * (78 KiB took seconds): one host character is enough, the rest is one run.
 */
export const PAGE_URL_PATTERN = /^https?:\/\/[^\s/?#]\S*$/i;

/** What the widget tells about the reporter's browser: short descriptive strings only (never cookies or page content). */
export class ReporterContextInputDto {
  @ApiProperty({ required: false, example: 'Firefox 133', maxLength: 64 })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  browser?: string;

  @ApiProperty({ required: false, example: 'Android 15', maxLength: 64 })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  os?: string;

  @ApiProperty({ required: false, example: '390x844', maxLength: 16, description: 'width x height in CSS pixels' })
  @IsOptional()
  @IsString()
  @MaxLength(16)
  @Matches(/^\d{1,5}x\d{1,5}$/, { message: 'reporterContext.viewport must be WIDTHxHEIGHT' })
  viewport?: string;

  @ApiProperty({ required: false, example: 'de-DE', maxLength: 35 })
  @IsOptional()
  @Matches(/^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8}){0,4}$/, { message: 'reporterContext.language must be a language tag' })
  @MaxLength(35)
  language?: string;

  @ApiProperty({ required: false, maxLength: 2048, example: 'https://search.example/', description: 'The referring page, without its query or fragment' })
  @IsOptional()
  @IsString()
  @MaxLength(2048)
  @Matches(PAGE_URL_PATTERN, { message: 'reporterContext.referrer must be an http(s) URL' })
  referrer?: string;
}

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

  @ApiProperty({ required: false, type: ReporterContextInputDto, description: "The reporter's browser, OS, viewport, language and referrer (the widget sends them; optional)" })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => ReporterContextInputDto)
  reporterContext?: ReporterContextInputDto;

  @ApiProperty({
    required: false,
    maxLength: REPORTER_LIMITS.tokenChars,
    example: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1c2VyXzgyMzEiLCJleHAiOjE3NjQyNzM2MDB9.c2lnbmF0dXJl',
    description:
      "The reporter's identity as the site's server signed it: a JWT (HS256) with the site's identity secret, claims `sub` (user id, 1..128), " +
      'optional `email` (254) and `name` (128), and `exp` (at most 24 h ahead). Invalid, expired or signed with another secret: 400 IDENTITY_TOKEN_INVALID.',
  })
  @IsOptional()
  @IsString()
  @MaxLength(REPORTER_LIMITS.tokenChars)
  userToken?: string;
}

export class SubmittedFeedbackDto {
  @ApiProperty({ format: 'uuid' })
  id: string;
}
