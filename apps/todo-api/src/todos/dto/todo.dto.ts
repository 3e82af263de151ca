import { ApiProperty } from '@nestjs/swagger';
import type { TodoRow } from '../todos.repository.js';

export class TodoDto {
  @ApiProperty({ type: 'integer', minimum: 1, example: 42 })
  id: number;

  @ApiProperty({ example: 'Renew the passport', minLength: 1, maxLength: 5000 })
  text: string;

  @ApiProperty({ example: 2, type: 'integer', minimum: 1, maximum: 4, description: '1 is urgent, 4 is low' })
  priority: number;

  @ApiProperty({ example: 'errands', minLength: 1, maxLength: 100 })
  category: string;

  @ApiProperty({ example: 30, type: 'integer', minimum: 0, nullable: true })
  estimatedDurationMinutes: number | null;

  @ApiProperty({ type: 'integer', description: 'Unix timestamp in seconds', example: 1763700000 })
  createdAt: number;
}

export function toTodoDto(row: TodoRow): TodoDto {
  return {
    id: row.id,
    text: row.text,
    priority: row.priority,
    category: row.category,
    estimatedDurationMinutes: row.estimatedDurationMinutes,
    createdAt: row.createdAt,
  };
}

export class TodoDataDto {
  @ApiProperty({ type: TodoDto })
  todo: TodoDto;
}

export class TodoListDto {
  @ApiProperty({ type: [TodoDto] })
  todos: TodoDto[];

  @ApiProperty({ example: 'eyJrIjoiYyIsInYiOlsxNzYzNzAwMDAwLDQyXX0', type: 'string', nullable: true, description: 'Pass as `cursor` for the next page; null at the end' })
  nextCursor: string | null;
}

/** The todos of a bulk write, in the order given. */
export class TodosDataDto {
  @ApiProperty({ type: [TodoDto] })
  todos: TodoDto[];
}

export class CategoryCountDto {
  @ApiProperty({ example: 'errands' })
  category: string;

  @ApiProperty({ type: 'integer', example: 3, description: 'Todos in this category' })
  count: number;
}

export function toCategoryCountDto(row: { category: string; count: number }): CategoryCountDto {
  return { category: row.category, count: Number(row.count) };
}

export class CategoriesDto {
  @ApiProperty({ type: [CategoryCountDto], description: 'Every category the account uses, by name' })
  categories: CategoryCountDto[];
}

export class DeletedTodoDto {
  @ApiProperty({ type: 'integer', example: 42 })
  id: number;

  @ApiProperty({ enum: [true] })
  deleted: true;
}
