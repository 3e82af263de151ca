import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { portableSchema } from './mcp-tool.registry.js';

describe('portableSchema', () => {
  it('writes a nullable type as anyOf branches and drops zod’s safe-integer bounds, accepting the same values', () => {
    const json = z.toJSONSchema(
      z.object({
        nextCursor: z.string().max(10).nullable().describe('Next page; null at the end'),
        count: z.number().int().nonnegative().describe('How many'),
        items: z.array(z.object({ at: z.number().int().nullable().describe('When') })).describe('Items'),
      }),
      { target: 'draft-7', io: 'output' },
    );
    const portable = portableSchema(json) as { properties: Record<string, unknown> };
    expect(portable.properties.nextCursor).toEqual({ description: 'Next page; null at the end', anyOf: [{ type: 'string', maxLength: 10 }, { type: 'null' }] });
    expect(portable.properties.count).toEqual({ description: 'How many', type: 'integer', minimum: 0 });
    expect(portable.properties.items).toEqual({
      description: 'Items',
      type: 'array',
      items: { type: 'object', properties: { at: { description: 'When', anyOf: [{ type: 'integer' }, { type: 'null' }] } }, required: ['at'], additionalProperties: false },
    });
  });
});
