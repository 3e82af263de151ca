import { applyDecorators, Type } from '@nestjs/common';
import { ApiExtraModels, ApiProperty, ApiResponse, getSchemaPath, type HeadersObject } from '@nestjs/swagger';
import { ERROR_CATALOGUE, ErrorCode, isRetryableUnavailability, publicCodeOf } from '../errors/error-code.enum.js';

export class FieldErrorDto {
  @ApiProperty({ example: 'priority', description: 'The property (dotted path for nested ones, e.g. `questions.0.title`)' })
  field: string;

  @ApiProperty({ type: [String], example: ['priority is required'], description: 'What is wrong with it, in words a person can read' })
  messages: string[];
}

export class ErrorDetailDto {
  @ApiProperty({ example: 'VALIDATION_ERROR', description: 'Stable machine-readable code' })
  code: string;

  @ApiProperty({ example: 'The request is invalid', description: 'Human-readable explanation' })
  message: string;

  @ApiProperty({
    selfRequired: false,
    description: 'Extra data: `fields` (one entry per invalid property) for VALIDATION_ERROR, other keys for other codes',
    type: 'object',
    properties: { fields: { type: 'array', items: { $ref: getSchemaPath(FieldErrorDto) } } },
    additionalProperties: true,
  })
  details?: { fields?: FieldErrorDto[]; [key: string]: unknown };
}

export class ErrorEnvelopeDto {
  @ApiProperty({ enum: [false] })
  success: false;

  @ApiProperty({ type: ErrorDetailDto })
  error: ErrorDetailDto;
}

export interface ApiEnvelopeOptions {
  status?: number;
  description?: string;
  /** Headers the success answer carries beyond those every answer has (see openapi-finish.ts). */
  headers?: HeadersObject;
  /** `data` of the example answer; by default it is built from the model's property examples. */
  example?: unknown;
}

/** A success envelope `{success: true, data: <model>}`, documented with the model's schema. */
export function ApiEnvelope(model: Type<unknown> | null, options: ApiEnvelopeOptions = {}) {
  const data = model ? { $ref: getSchemaPath(model) } : { type: 'object', nullable: true };
  return applyDecorators(
    ...(model ? [ApiExtraModels(model)] : []),
    ApiResponse({
      status: options.status ?? 200,
      description: options.description ?? 'Success',
      headers: options.headers,
      content: {
        'application/json': {
          schema: {
            type: 'object',
            required: ['success', 'data'],
            properties: { success: { type: 'boolean', enum: [true] }, data },
          },
          ...(options.example === undefined ? {} : { example: { success: true, data: options.example } }),
        },
      },
    }),
  );
}

/** A 503 that retrying can cure names when (the global filter adds it to every such 503). */
const RETRY_AFTER_HEADER = {
  'Retry-After': { description: 'Seconds to wait before retrying (the dependency is down, a queue is full, or the replica is draining)', schema: { type: 'integer' } },
};

/** Documents the error responses a route can give, grouped by status, with their codes. */

function exampleMessage(code: ErrorCode): string {
  const words = publicCodeOf(code).toLowerCase().replace(/_/g, ' ');
  return ERROR_CATALOGUE[code].example ?? words.charAt(0).toUpperCase() + words.slice(1);
}

/** The envelope of one error code, as an OpenAPI example. */
export function errorExample(code: ErrorCode): { success: false; error: { code: string; message: string; details?: unknown } } {
  const error: { code: string; message: string; details?: unknown } = { code: publicCodeOf(code), message: exampleMessage(code) };
  if (code === ErrorCode.VALIDATION_ERROR) error.details = { fields: [{ field: 'name', messages: ['name is required'] }] };
  if (ERROR_CATALOGUE[code].exampleDetails !== undefined) error.details = ERROR_CATALOGUE[code].exampleDetails;
  return { success: false, error };
}

/** Documents the error responses a route can give, grouped by status, with their codes and an example of each. */
export function ApiErrors(...codes: ErrorCode[]) {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of [...codes, ErrorCode.VALIDATION_ERROR, ErrorCode.INTERNAL_ERROR]) {
    const status = ERROR_CATALOGUE[code].status;
    const list = byStatus.get(status) ?? [];
    if (!list.some((known) => publicCodeOf(known) === publicCodeOf(code))) list.push(code);
    byStatus.set(status, list);
  }
  return applyDecorators(
    ApiExtraModels(ErrorEnvelopeDto, ErrorDetailDto, FieldErrorDto),
    ...[...byStatus.entries()].map(([status, list]) =>
      ApiResponse({
        status,
        description: `Error: ${list.map(publicCodeOf).join(', ')}`,
        content: {
          'application/json': {
            schema: { $ref: getSchemaPath(ErrorEnvelopeDto) },
            examples: Object.fromEntries(list.map((code) => [publicCodeOf(code), { summary: publicCodeOf(code), value: errorExample(code) }])),
          },
        },
        ...(list.some(isRetryableUnavailability) ? { headers: RETRY_AFTER_HEADER } : {}),
      }),
    ),
  );
}
