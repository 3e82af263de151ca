import { applyDecorators } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { IsOptionalNotNull } from '#libs/common';
import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsBoolean, IsEmail, IsInt, IsObject, IsOptional, IsString, Length, Matches, Max, MaxLength, Min, ValidateNested } from 'class-validator';
import { BATCH_STATUSES, type BatchStatus } from '../batch-status.js';
import type { BatchRow, QuestionRow } from '../questions.repository.js';

export const MAX_QUESTIONS = 100;
export const MAX_HTML_LENGTH = 20_000;
export const MAX_TITLE_LENGTH = 200;
export const MAX_QUESTION_NUMBER = 1_000_000;
export const MAX_ANSWER_LENGTH = 20_000;

/** A timestamp as the API writes it (ISO 8601); null stays null. */
export const isoTimestamp = (value: Date | string | null): string | null => (value === null ? null : new Date(value).toISOString());

export class QuestionInputDto {
  @ApiProperty({ type: 'integer', minimum: 1, maximum: MAX_QUESTION_NUMBER, description: 'Question number, unique within the batch; questions are shown in ascending n', example: 1 })
  @IsInt()
  @Min(1)
  @Max(MAX_QUESTION_NUMBER)
  n: number;

  @ApiProperty({ minLength: 1, maxLength: MAX_TITLE_LENGTH, example: 'Which pages need new copy?' })
  @IsString()
  @Length(1, MAX_TITLE_LENGTH)
  @Matches(/\S/, { message: 'title must not be blank' })
  title: string;

  @ApiProperty({
    maxLength: MAX_HTML_LENGTH,
    example: '<p>List them with a <strong>short</strong> reason.</p>',
    description: 'Body of the question. Sanitised when stored: formatting, lists, quotes, code and http/https/mailto links are kept; anything else is removed.',
  })
  @IsString()
  @MaxLength(MAX_HTML_LENGTH)
  html: string;
}

/** The rules of a batch's fields, one source for the create and the draft edit (and so for their MCP tools). */
const BatchTitleRules = () => applyDecorators(IsString(), Length(1, MAX_TITLE_LENGTH), Matches(/\S/, { message: 'title must not be blank' }));
const BatchHtmlRules = () => applyDecorators(IsString(), MaxLength(MAX_HTML_LENGTH));
const NotifyEmailRules = () => applyDecorators(IsEmail(), MaxLength(254));
const BatchQuestionsRules = () =>
  applyDecorators(
    IsArray(),
    ArrayMinSize(1),
    ArrayMaxSize(MAX_QUESTIONS),
    // ValidateNested alone lets an array stand in for a question object.
    IsObject({ each: true }),
    ValidateNested({ each: true }),
    Type(() => QuestionInputDto),
  );

export class CreateQuestionBatchDto {
  @ApiProperty({ minLength: 1, maxLength: MAX_TITLE_LENGTH, example: 'Homepage review' })
  @BatchTitleRules()
  title: string;

  @ApiProperty({ example: '<p>Thanks for taking a look. A sentence or two per question is plenty.</p>', required: false, maxLength: MAX_HTML_LENGTH, description: 'Shown above the questions; sanitised like question html' })
  @IsOptional()
  @BatchHtmlRules()
  introHtml?: string;

  @ApiProperty({ required: false, format: 'email', maxLength: 254, description: "Who is e-mailed when the recipient submits; defaults to the site owner's e-mail" })
  @IsOptional()
  @NotifyEmailRules()
  notifyEmail?: string;

  @ApiProperty({ required: false, default: false, description: 'true: create as sent and return shareUrl; false or absent: a draft, sent later (POST …/{id}/send, or its owner in the dashboard)' })
  @IsOptional()
  @IsBoolean()
  sendNow?: boolean;

  @ApiProperty({ type: [QuestionInputDto], minItems: 1, maxItems: MAX_QUESTIONS, description: `1..${MAX_QUESTIONS} questions; n must be unique` })
  @BatchQuestionsRules()
  questions: QuestionInputDto[];
}

/**
 * An edit of a draft: the fields of a create (same rules), each optional; what is given replaces
 * what is stored (questions as a whole list). null clears introHtml and puts notifyEmail back to
 * the owner's e-mail, as leaving them out of a create does.
 */
export class UpdateQuestionBatchDto {
  @ApiProperty({ required: false, minLength: 1, maxLength: MAX_TITLE_LENGTH, example: 'Homepage review, second round' })
  @IsOptionalNotNull()
  @BatchTitleRules()
  title?: string;

  @ApiProperty({ type: 'string', required: false, nullable: true, maxLength: MAX_HTML_LENGTH, example: '<p>Two more questions this time.</p>', description: 'Replaces the intro; null clears it' })
  @IsOptional()
  @BatchHtmlRules()
  introHtml?: string | null;

  @ApiProperty({ type: 'string', required: false, nullable: true, format: 'email', maxLength: 254, description: "Replaces the notified address; null: the site owner's e-mail" })
  @IsOptional()
  @NotifyEmailRules()
  notifyEmail?: string | null;

  @ApiProperty({ type: [QuestionInputDto], required: false, minItems: 1, maxItems: MAX_QUESTIONS, description: `Replaces every question: 1..${MAX_QUESTIONS}, n unique` })
  @IsOptionalNotNull()
  @BatchQuestionsRules()
  questions?: QuestionInputDto[];
}

export class DeletedBatchDto {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ enum: [true] })
  deleted: true;
}

/** The HTML of a batch in the making, to see it as the recipient will (nothing is stored). */
export class PreviewQuestionsDto {
  @ApiProperty({ required: false, maxLength: MAX_HTML_LENGTH, example: '<p>Thanks for taking a look.</p><script>alert(1)</script>' })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_HTML_LENGTH)
  introHtml?: string;

  @ApiProperty({ type: [QuestionInputDto], minItems: 1, maxItems: MAX_QUESTIONS })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_QUESTIONS)
  @IsObject({ each: true })
  @ValidateNested({ each: true })
  @Type(() => QuestionInputDto)
  questions: QuestionInputDto[];
}

export class PreviewQuestionDto {
  @ApiProperty({ type: 'integer', example: 1 })
  n: number;

  @ApiProperty({ example: 'Which pages need new copy?' })
  title: string;

  @ApiProperty({ example: '<p>List them with a <strong>short</strong> reason.</p>', description: 'Sanitised HTML, exactly as the recipient will see it' })
  html: string;
}

export class QuestionsPreviewDto {
  @ApiProperty({ example: '<p>Thanks for taking a look.</p>', description: 'Sanitised HTML; empty when none' })
  introHtml: string;

  @ApiProperty({ type: [PreviewQuestionDto], description: 'Ascending n' })
  questions: PreviewQuestionDto[];
}

export class CreatedBatchDto {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ enum: BATCH_STATUSES, example: 'draft' })
  status: BatchStatus;

  @ApiProperty({ example: 'https://feedback.example.com/q/3q2-7wDaVhxR6Z1k0xgZb7TJ8w3Tn8sXz9bYv3yq0pA', required: false, format: 'uri', description: 'Present when sendNow was true: FEEDBACK_PUBLIC_BASE_URL + /q/{shareToken}' })
  shareUrl?: string;
}

export class BatchSummaryDto {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ example: 'Homepage review' })
  title: string;

  @ApiProperty({ enum: BATCH_STATUSES })
  status: BatchStatus;

  @ApiProperty({ example: 3, type: 'integer' })
  questionCount: number;

  @ApiProperty({ example: 1, type: 'integer', description: 'Questions with a saved answer' })
  answerCount: number;

  @ApiProperty({ format: 'date-time' })
  createdAt: string;

  @ApiProperty({ type: 'string', format: 'date-time', nullable: true })
  sentAt: string | null;

  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, description: 'First view of the share page' })
  openedAt: string | null;

  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, description: 'First submit' })
  answeredAt: string | null;
}

export function toBatchSummaryDto(row: BatchRow): BatchSummaryDto {
  return {
    id: row.id,
    title: row.title,
    status: row.status,
    questionCount: Number(row.questionCount),
    answerCount: Number(row.answerCount),
    createdAt: isoTimestamp(row.createdAt)!,
    sentAt: isoTimestamp(row.sentAt),
    openedAt: isoTimestamp(row.openedAt),
    answeredAt: isoTimestamp(row.answeredAt),
  };
}

export class BatchListDto {
  @ApiProperty({ type: [BatchSummaryDto], description: 'Oldest first. Never carries share links.' })
  batches: BatchSummaryDto[];
}

export class AnswerDto {
  @ApiProperty({ example: 'The pricing page and the about page.' })
  text: string;

  @ApiProperty({ format: 'date-time', description: 'Last save of this answer' })
  updatedAt: string;
}

function toAnswerDto(question: QuestionRow): AnswerDto | null {
  return question.answerText === null || question.answerUpdatedAt === null ? null : { text: question.answerText, updatedAt: isoTimestamp(question.answerUpdatedAt)! };
}

/** A stored question as both its owner (BatchQuestionDto) and its recipient (SharedQuestionDto) read it, before its answer. */
export abstract class StoredQuestionDto {
  @ApiProperty({ type: 'integer' })
  n: number;

  @ApiProperty({ example: 'Which pages need new copy?' })
  title: string;

  @ApiProperty({ example: '<p>List them with a <strong>short</strong> reason.</p>', description: 'Sanitised HTML' })
  html: string;
}

export class BatchQuestionDto extends StoredQuestionDto {
  @ApiProperty({ type: AnswerDto, nullable: true })
  answer: AnswerDto | null;
}

function toBatchQuestionDto(question: QuestionRow): BatchQuestionDto {
  return { n: Number(question.n), title: question.title, html: question.html, answer: toAnswerDto(question) };
}

export class BatchDetailDto extends BatchSummaryDto {
  @ApiProperty({ example: '<p>Thanks for taking a look. A sentence or two per question is plenty.</p>', description: 'Sanitised HTML; empty when none' })
  introHtml: string;

  @ApiProperty({ format: 'email' })
  notifyEmail: string;

  @ApiProperty({ type: [BatchQuestionDto], description: 'Ascending n, each beside its answer (null when unanswered)' })
  questions: BatchQuestionDto[];
}

export function toBatchDetailDto(row: BatchRow, questions: QuestionRow[]): BatchDetailDto {
  return { ...toBatchSummaryDto(row), introHtml: row.introHtml, notifyEmail: row.notifyEmail, questions: questions.map(toBatchQuestionDto) };
}

export class BatchDataDto {
  @ApiProperty({ type: BatchDetailDto })
  batch: BatchDetailDto;
}

export class ShareLinkDto {
  @ApiProperty({ format: 'uri', example: 'https://feedback.example.com/q/3q2-7wDaVhxR6Z1k0xgZb7TJ8w3Tn8sXz9bYv3yq0pA' })
  shareUrl: string;
}

export class SentBatchDto {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ enum: BATCH_STATUSES })
  status: BatchStatus;

  @ApiProperty({ example: 'https://feedback.example.com/q/3q2-7wDaVhxR6Z1k0xgZb7TJ8w3Tn8sXz9bYv3yq0pA', format: 'uri' })
  shareUrl: string;
}
