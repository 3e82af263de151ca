import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsInt, IsOptional, IsString, Length, Max, Min } from 'class-validator';
import { QueryInteger } from '#libs/common';
import { SORT_ORDERS, TODO_LIMITS, TODO_SORTS, type SortOrder, type TodoSort } from '../todo-limits.js';

export class ListTodosQuery {
  @ApiPropertyOptional({ description: 'Only todos of this category (exact match)', maxLength: TODO_LIMITS.categoryMaxLength })
  @IsOptional()
  @IsString()
  @Length(1, TODO_LIMITS.categoryMaxLength)
  category?: string;

  @ApiPropertyOptional({ type: 'integer', minimum: TODO_LIMITS.priorityMin, maximum: TODO_LIMITS.priorityMax, description: 'Only todos of this priority' })
  @IsOptional()
  @QueryInteger({ signed: true })
  @IsInt()
  @Min(TODO_LIMITS.priorityMin)
  @Max(TODO_LIMITS.priorityMax)
  priority?: number;

  @ApiPropertyOptional({ description: 'Only todos whose text contains this string (case-insensitive)', maxLength: TODO_LIMITS.textMaxLength })
  @IsOptional()
  @IsString()
  @Length(1, TODO_LIMITS.textMaxLength)
  q?: string;

  @ApiPropertyOptional({ enum: TODO_SORTS, default: 'createdAt', description: 'priority sorts by priority, then createdAt, then id' })
  @IsOptional()
  @IsIn(TODO_SORTS)
  sort?: TodoSort;

  @ApiPropertyOptional({ enum: SORT_ORDERS, default: 'asc' })
  @IsOptional()
  @IsIn(SORT_ORDERS)
  order?: SortOrder;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: TODO_LIMITS.listMaxLimit, default: TODO_LIMITS.listDefaultLimit })
  @IsOptional()
  @QueryInteger({ signed: true })
  @IsInt()
  @Min(1)
  @Max(TODO_LIMITS.listMaxLimit)
  limit?: number;

  @ApiPropertyOptional({ description: 'Opaque `nextCursor` of the previous page; use it with the same filters, sort and order' })
  @IsOptional()
  @IsString()
  @Length(1, 2000)
  cursor?: string;
}
