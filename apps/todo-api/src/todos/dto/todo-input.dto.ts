import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsInt, IsObject, IsOptional, IsString, Length, Max, Min, ValidateIf, ValidateNested } from 'class-validator';
import { TODO_LIMITS } from '../todo-limits.js';

export class CreateTodoDto {
  @ApiProperty({ minLength: 1, maxLength: TODO_LIMITS.textMaxLength, example: 'Renew the passport' })
  @IsString()
  @Length(1, TODO_LIMITS.textMaxLength)
  text: string;

  @ApiProperty({ type: 'integer', minimum: TODO_LIMITS.priorityMin, maximum: TODO_LIMITS.priorityMax, description: '1 is urgent, 4 is low', example: 2 })
  @IsInt()
  @Min(TODO_LIMITS.priorityMin)
  @Max(TODO_LIMITS.priorityMax)
  priority: number;

  @ApiProperty({ minLength: 1, maxLength: TODO_LIMITS.categoryMaxLength, example: 'errands' })
  @IsString()
  @Length(1, TODO_LIMITS.categoryMaxLength)
  category: string;

  @ApiPropertyOptional({ type: 'integer', minimum: 0, nullable: true, example: 30 })
  @IsOptional()
  @IsInt()
  @Min(0)
  estimatedDurationMinutes?: number | null;
}

/** Any of the create fields, at least one (checked by the service); only the duration may be null. */
export class UpdateTodoDto {
  @ApiPropertyOptional({ example: 'Renew the passport before June', minLength: 1, maxLength: TODO_LIMITS.textMaxLength })
  @ValidateIf((dto: UpdateTodoDto) => dto.text !== undefined)
  @IsString()
  @Length(1, TODO_LIMITS.textMaxLength)
  text?: string;

  @ApiPropertyOptional({ example: 1, type: 'integer', minimum: TODO_LIMITS.priorityMin, maximum: TODO_LIMITS.priorityMax })
  @ValidateIf((dto: UpdateTodoDto) => dto.priority !== undefined)
  @IsInt()
  @Min(TODO_LIMITS.priorityMin)
  @Max(TODO_LIMITS.priorityMax)
  priority?: number;

  @ApiPropertyOptional({ example: 'errands', minLength: 1, maxLength: TODO_LIMITS.categoryMaxLength })
  @ValidateIf((dto: UpdateTodoDto) => dto.category !== undefined)
  @IsString()
  @Length(1, TODO_LIMITS.categoryMaxLength)
  category?: string;

  @ApiPropertyOptional({ type: 'integer', minimum: 0, nullable: true, description: 'null clears the estimate' })
  @IsOptional()
  @IsInt()
  @Min(0)
  estimatedDurationMinutes?: number | null;
}

/** Up to TODO_LIMITS.bulkMaxItems todos to create at once (the MCP create_todos), each under CreateTodoDto's rules. */
export class CreateTodosDto {
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(TODO_LIMITS.bulkMaxItems)
  @IsObject({ each: true })
  @ValidateNested({ each: true })
  @Type(() => CreateTodoDto)
  todos: CreateTodoDto[];
}

/** One change of a bulk update: the todo's id and UpdateTodoDto's fields. */
export class UpdateTodoItemDto extends UpdateTodoDto {
  @IsInt()
  @Min(1)
  @Max(2147483647)
  id: number;
}

/** Up to TODO_LIMITS.bulkMaxItems changes at once (the MCP update_todos), each under UpdateTodoDto's rules. */
export class UpdateTodosDto {
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(TODO_LIMITS.bulkMaxItems)
  @IsObject({ each: true })
  @ValidateNested({ each: true })
  @Type(() => UpdateTodoItemDto)
  todos: UpdateTodoItemDto[];
}
