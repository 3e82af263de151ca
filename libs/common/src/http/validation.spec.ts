import { describe, expect, it } from '@jest/globals';
import { IsIn, IsInt, IsString, Max, MaxLength, Min, MinLength } from 'class-validator';
import { AppException } from '../errors/app.exception.js';
import { createValidationPipe, IsOptionalNotNull } from './validation.js';

class TodoBody {
  @IsString()
  @MinLength(1)
  @MaxLength(100)
  category: string;

  @IsInt()
  @Min(1)
  @Max(4)
  priority: number;
}

class PageQuery {
  @IsOptionalNotNull()
  @IsString()
  since?: string;

  @IsOptionalNotNull()
  @IsIn(['bug', 'feedback'])
  type?: string;
}

async function fieldsOf(metatype: new () => object, type: 'body' | 'query', value: unknown) {
  try {
    await createValidationPipe().transform(value, { type, metatype });
  } catch (error) {
    if (!(error instanceof AppException)) throw error;
    return { message: error.message, fields: (error.details as { fields: unknown }).fields };
  }
  throw new Error('the value was accepted');
}

describe('validation messages', () => {
  it('a missing property is "<name> is required", not every rule it would break', async () => {
    expect(await fieldsOf(TodoBody, 'body', { category: 'errands' })).toEqual({
      message: 'priority is required',
      fields: [{ field: 'priority', messages: ['priority is required'] }],
    });
  });

  it('a value of the wrong type says the type only; null says null; range messages stay when the type is right', async () => {
    const result = await fieldsOf(TodoBody, 'body', { category: null, priority: 'urgent' });
    expect(result.fields).toEqual([
      { field: 'category', messages: ['category must not be null'] },
      { field: 'priority', messages: ['priority must be a whole number'] },
    ]);
    expect(result.message).toBe('The request is invalid: category, priority');
    expect((await fieldsOf(TodoBody, 'body', { category: 'x', priority: 9 })).fields).toEqual([{ field: 'priority', messages: ['priority must not be greater than 4'] }]);
  });

  it('an unknown paging parameter points to the one the route pages with', async () => {
    expect(await fieldsOf(PageQuery, 'query', { cursor: 'abc' })).toEqual({
      message: 'cursor is not a query parameter of this route: it pages with since (pass the nextCursor of the previous page as since)',
      fields: [{ field: 'cursor', messages: ['cursor is not a query parameter of this route: it pages with since (pass the nextCursor of the previous page as since)'] }],
    });
    expect((await fieldsOf(PageQuery, 'query', { colour: 'red' })).fields).toEqual([{ field: 'colour', messages: ['colour is not a query parameter of this route (known: since, type)'] }]);
  });
});
