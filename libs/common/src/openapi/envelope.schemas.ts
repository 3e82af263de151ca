import { applyDecorators, Type } from '@nestjs/common';
import { ApiExtraModels, ApiProperty, ApiPropertyOptional, ApiResponse, getSchemaPath } from '@nestjs/swagger';
import { ERROR_CATALOGUE, ErrorCode, publicCodeOf } from '../errors/error-code.enum.js';

export class ErrorDetailDto {
  @ApiProperty({ example: 'VALIDATION_ERROR', description: 'Stable machine-readable code' })
  code: string;

  @ApiProperty({ example: 'The request is invalid', description: 'Human-readable explanation' })
  message: string;

  @ApiPropertyOptional({ description: 'Extra data, e.g. `{fields: [{field, messages}]}` for VALIDATION_ERROR', type: 'object', additionalProperties: true })
  details?: Record<string, unknown>;
}

export class ErrorEnvelopeDto {
  @ApiProperty({ enum: [false] })
  success: false;

  @ApiProperty({ type: ErrorDetailDto })
  error: ErrorDetailDto;
}

/** A success envelope `{success: true, data: <model>}`, documented with the model's schema. */
export function ApiEnvelope(model: Type<unknown> | null, options: { status?: number; description?: string } = {}) {
  const data = model ? { $ref: getSchemaPath(model) } : { type: 'object', nullable: true };
  return applyDecorators(
    ...(model ? [ApiExtraModels(model)] : []),
    ApiResponse({
      status: options.status ?? 200,
      description: options.description ?? 'Success',
      schema: {
        type: 'object',
        required: ['success', 'data'],
        properties: { success: { type: 'boolean', enum: [true] }, data },
      },
    }),
  );
}

/** Documents the error responses a route can give, grouped by status, with their codes. */
export function ApiErrors(...codes: ErrorCode[]) {
  const byStatus = new Map<number, string[]>();
  for (const code of [...codes, ErrorCode.VALIDATION_ERROR, ErrorCode.INTERNAL_ERROR]) {
    const status = ERROR_CATALOGUE[code].status;
    const list = byStatus.get(status) ?? [];
    if (!list.includes(publicCodeOf(code))) list.push(publicCodeOf(code));
    byStatus.set(status, list);
  }
  return applyDecorators(
    ApiExtraModels(ErrorEnvelopeDto, ErrorDetailDto),
    ...[...byStatus.entries()].map(([status, list]) =>
      ApiResponse({ status, description: `Error: ${list.join(', ')}`, schema: { $ref: getSchemaPath(ErrorEnvelopeDto) } }),
    ),
  );
}
