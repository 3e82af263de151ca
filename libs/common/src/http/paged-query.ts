import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsInt, IsOptional, IsString, Length, Max, Min } from 'class-validator';

const DIGITS = /^[0-9]+$/;

/**
 * A query-string integer: query strings arrive as text, and only a plain decimal integer (at most
 * `digits` digits, with a leading minus when `signed`) becomes a number; anything else stays text
 * and fails the property's @IsInt.
 */
export function QueryInteger({ digits = 10, signed = false }: { digits?: number; signed?: boolean } = {}): PropertyDecorator {
  const isInteger = (text: string): boolean => {
    const unsigned = signed && text.startsWith('-') ? text.slice(1) : text;
    return unsigned.length <= digits && DIGITS.test(unsigned);
  };
  return Transform(({ value }: { value: unknown }) => (typeof value === 'string' && isInteger(value) ? Number(value) : value));
}

/** The page size a listing takes (`limit`) and what it gives when none is asked for. */
export interface PageSize {
  defaultLimit: number;
  maxLimit: number;
}

/**
 * The query of a cursor-paged listing: `limit` (1..maxLimit, default defaultLimit) and `cursor`
 * (the opaque `nextCursor` of the previous page). A listing's query DTO extends
 * `PagedQuery(ITS_PAGE)` and adds its filters.
 */
export function PagedQuery(page: PageSize) {
  class PagedQueryDto {
    @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: page.maxLimit, default: page.defaultLimit })
    @IsOptional()
    @QueryInteger()
    @IsInt()
    @Min(1)
    @Max(page.maxLimit)
    limit?: number;

    @ApiPropertyOptional({ description: 'Opaque `nextCursor` of the previous page' })
    @IsOptional()
    @IsString()
    @Length(1, 500)
    cursor?: string;
  }
  return PagedQueryDto;
}
