import { describe, expect, it } from '@jest/globals';
import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsIn, IsInt, IsString, Length, Max, MaxLength, Min, ValidateNested } from 'class-validator';
import { z } from 'zod';
import { rulesDisagreement } from './mcp-rules-agreement.js';

class ItemBody {
  @ApiProperty()
  @IsString()
  @Length(1, 50)
  label: string;
}

class Body {
  @ApiProperty()
  @IsString()
  @MaxLength(200)
  text: string;

  @ApiProperty()
  @IsInt()
  @Min(1)
  @Max(4)
  priority: number;

  @ApiProperty()
  @IsIn(['a', 'b'])
  sort: string;

  @ApiProperty({ type: [ItemBody] })
  @ArrayMaxSize(3)
  @ValidateNested({ each: true })
  @Type(() => ItemBody)
  items: ItemBody[];
}

const schemaOf = (input: z.ZodObject) => z.toJSONSchema(input, { target: 'draft-7', io: 'input' }) as Record<string, unknown>;
const agreeing = {
  text: z.string().max(200),
  priority: z.number().int().min(1).max(4).nullable(),
  sort: z.enum(['b', 'a']),
  items: z.array(z.object({ label: z.string().min(1).max(50) })).max(3),
};

describe('rulesDisagreement: an MCP tool’s arguments against the REST DTO that validates them', () => {
  it('finds nothing when both say the same (enum order and "or null" aside)', () => {
    expect(rulesDisagreement(Body, schemaOf(z.object(agreeing)))).toEqual([]);
  });

  it('names each length, bound, integer, enum and item count that differs, nested items included', () => {
    const drifted = z.object({
      ...agreeing,
      text: z.string().max(201),
      priority: z.number().min(0).max(4),
      sort: z.enum(['a', 'b', 'c']),
      items: z.array(z.object({ label: z.string().min(1).max(60) })).max(5),
    });
    expect(rulesDisagreement(Body, schemaOf(drifted)).sort()).toEqual([
      'items: the DTO says maxItems 3, the tool 5',
      'items[].label: the DTO says maxLength 50, the tool 60',
      'priority: the DTO says minimum 1, the tool 0',
      'priority: the DTO says type "integer", the tool "number"',
      'sort: the DTO says enum ["a","b"], the tool ["a","b","c"]',
      'text: the DTO says maxLength 200, the tool 201',
    ]);
  });
});
