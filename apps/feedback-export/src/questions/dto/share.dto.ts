import { ApiProperty } from '@nestjs/swagger';
import { IsString, Length, Matches } from 'class-validator';
import type { AnswerRow, BatchRow, QuestionRow } from '../questions.repository.js';
import { BATCH_STATUSES, type BatchStatus } from '../batch-status.js';
import { isoTimestamp, MAX_ANSWER_LENGTH, StoredQuestionDto } from './question-batch.dto.js';

export class SaveAnswerDto {
  @ApiProperty({ example: 'The pricing page and the about page.', minLength: 1, maxLength: MAX_ANSWER_LENGTH, description: 'Plain text (never interpreted as HTML); not blank' })
  @IsString()
  @Length(1, MAX_ANSWER_LENGTH)
  @Matches(/\S/, { message: 'text must not be blank' })
  text: string;
}

export class SharedAnswerDto {
  @ApiProperty({ type: 'integer' })
  n: number;

  @ApiProperty({ example: 'The pricing page and the about page.' })
  text: string;

  @ApiProperty({ format: 'date-time' })
  updatedAt: string;
}

export function toSharedAnswerDto(row: AnswerRow): SharedAnswerDto {
  return { n: Number(row.n), text: row.text, updatedAt: isoTimestamp(row.updatedAt)! };
}

export class SavedAnswerDto {
  @ApiProperty({ type: SharedAnswerDto })
  answer: SharedAnswerDto;
}

export class SharedQuestionDto extends StoredQuestionDto {
  @ApiProperty({ type: SharedAnswerDto, nullable: true })
  answer: SharedAnswerDto | null;
}

function toSharedQuestionDto(question: QuestionRow): SharedQuestionDto {
  const answer = question.answerText === null || question.answerUpdatedAt === null ? null : toSharedAnswerDto({ n: question.n, text: question.answerText, updatedAt: question.answerUpdatedAt });
  return { n: Number(question.n), title: question.title, html: question.html, answer };
}

export class SharedBatchDto {
  @ApiProperty({ example: 'Homepage review' })
  title: string;

  @ApiProperty({ example: '<p>Thanks for taking a look.</p>', description: 'Sanitised HTML; empty when none' })
  introHtml: string;

  @ApiProperty({ enum: BATCH_STATUSES.filter((s) => s !== 'draft') })
  status: BatchStatus;

  @ApiProperty({ type: 'string', format: 'date-time', nullable: true })
  answeredAt: string | null;

  @ApiProperty({ type: [SharedQuestionDto] })
  questions: SharedQuestionDto[];
}

export function toSharedBatchDto(row: BatchRow, questions: QuestionRow[]): SharedBatchDto {
  return { title: row.title, introHtml: row.introHtml, status: row.status, answeredAt: isoTimestamp(row.answeredAt), questions: questions.map(toSharedQuestionDto) };
}

export class SharedBatchDataDto {
  @ApiProperty({ type: SharedBatchDto })
  batch: SharedBatchDto;
}

export class SubmittedDto {
  @ApiProperty({ enum: ['answered'] })
  status: BatchStatus;
}
