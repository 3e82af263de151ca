import { describe, expect, it } from '@jest/globals';
import { IsIn, IsInt, IsString, Matches, Max, MaxLength, Min, MinLength, ValidateBy, ValidateIf } from 'class-validator';
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

describe('validation of an empty object', () => {
  /** Counts how often its rules are evaluated: ValidateIf's condition runs on every validation. */
  let evaluations = 0;
  class CountedQuery {
    @ValidateIf(() => {
      evaluations += 1;
      return true;
    })
    @IsOptionalNotNull()
    @IsString()
    category?: string;
  }

  it('is decided once per class when it passes, and answers a fresh instance each time', async () => {
    const pipe = createValidationPipe();
    evaluations = 0;
    const first = await pipe.transform({}, { type: 'query', metatype: CountedQuery });
    const second = await pipe.transform({}, { type: 'query', metatype: CountedQuery });
    expect(first).toBeInstanceOf(CountedQuery);
    expect(second).toBeInstanceOf(CountedQuery);
    expect(second).not.toBe(first);
    expect(evaluations).toBe(1);
    // A non-empty object is validated every time.
    await pipe.transform({ category: 'x' }, { type: 'query', metatype: CountedQuery });
    await expect(pipe.transform({ category: 5 }, { type: 'query', metatype: CountedQuery })).rejects.toThrow(AppException);
    expect(evaluations).toBe(3);
  });

  it('is refused every time when the class needs a property', async () => {
    const pipe = createValidationPipe();
    for (let i = 0; i < 2; i++) {
      await expect(pipe.transform({}, { type: 'body', metatype: TodoBody })).rejects.toThrow('The request is invalid: category, priority');
    }
  });
});

let patternRuns = 0;
/** A pattern rule that counts its runs. */
const CountedPattern = () => ValidateBy({ name: 'countedPattern', validator: { validate: (value: unknown) => (patternRuns++, typeof value === 'string' && /^[a-z]+$/.test(value)), defaultMessage: () => '$property must be lowercase letters' } });

/** Rules written pattern-first: class-validator registers the decorator nearest the property first. */
class PatternFirst {
  @IsString()
  @MaxLength(20)
  @Matches(/^[a-z]+$/, { message: 'word must be lowercase letters' })
  @CountedPattern()
  word: string;
}

describe('rules run type, size, then patterns, and stop at the first failure', () => {
  it('a string past its length never reaches a pattern, whatever the decorator order', async () => {
    patternRuns = 0;
    expect(await fieldsOf(PatternFirst, 'body', { word: 'A'.repeat(1_000_000) })).toEqual({
      message: 'word must be shorter than or equal to 20 characters',
      fields: [{ field: 'word', messages: ['word must be shorter than or equal to 20 characters'] }],
    });
    expect(patternRuns).toBe(0);
  });

  it('a wrong type says the type only; within the length the pattern speaks with its own words', async () => {
    expect((await fieldsOf(PatternFirst, 'body', { word: 7 })).message).toBe('word must be text (a JSON string)');
    patternRuns = 0;
    expect((await fieldsOf(PatternFirst, 'body', { word: 'Abc' })).message).toBe('word must be lowercase letters');
    expect(patternRuns).toBe(1);
  });
});
