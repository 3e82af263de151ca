import { ValidateIf } from 'class-validator';
import { ArgumentMetadata, Injectable, ParseUUIDPipe, PipeTransform, ValidationError, ValidationPipe } from '@nestjs/common';
import { AppException } from '../errors/app.exception.js';
import { ErrorCode } from '../errors/error-code.enum.js';

export interface FieldError {
  field: string;
  messages: string[];
}

function flatten(errors: ValidationError[], parent = ''): FieldError[] {
  return errors.flatMap((error) => {
    const field = parent ? `${parent}.${error.property}` : error.property;
    const own = error.constraints ? [{ field, messages: Object.values(error.constraints) }] : [];
    return [...own, ...flatten(error.children ?? [], field)];
  });
}

export function validationException(fields: FieldError[], message = 'The request is invalid'): AppException {
  return new AppException(ErrorCode.VALIDATION_ERROR, message, { fields });
}

/**
 * Path parameters reach their own pipe (UUID_PARAM, PositiveIntPipe) as the raw string:
 * ValidationPipe would otherwise turn `1e3` or `0x1A` into a number first.
 */
class StrictParamValidationPipe extends ValidationPipe {
  protected override transformPrimitive(value: unknown, metadata: ArgumentMetadata): unknown {
    return metadata.type === 'param' ? value : super.transformPrimitive(value, metadata);
  }

  /** validator.js (IsEmail, byte-length checks) throws URIError on a lone UTF-16 surrogate (JSON `"\ud800"`): that is bad input, not a fault. */
  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    try {
      return await super.transform(value, metadata);
    } catch (error) {
      if (error instanceof URIError) {
        throw validationException([{ field: metadata.data ?? metadata.type, messages: ['must be well-formed Unicode text'] }], 'The request contains text that is not well-formed Unicode');
      }
      throw error;
    }
  }
}

/** Global validation: unknown properties are refused, payloads are converted to their DTO classes. */
export function createValidationPipe(): ValidationPipe {
  return new StrictParamValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    forbidUnknownValues: true,
    transform: true,
    transformOptions: { enableImplicitConversion: false },
    validationError: { target: false, value: false },
    exceptionFactory: (errors) => validationException(flatten(errors)),
  });
}

/** Path parameter that must be a UUID; anything else is 400 VALIDATION_ERROR. */
export const UUID_PARAM = new ParseUUIDPipe({
  exceptionFactory: () => validationException([{ field: 'id', messages: ['must be a UUID'] }], 'The path id must be a UUID'),
});

/** Path parameter that must be an integer >= 1 (and fit a Postgres integer). */
@Injectable()
export class PositiveIntPipe implements PipeTransform<string, number> {
  transform(value: string, metadata: ArgumentMetadata): number {
    const parsed = /^[0-9]{1,10}$/.test(value) ? Number(value) : NaN;
    if (!Number.isInteger(parsed) || parsed < 1 || parsed > 2147483647) {
      throw validationException([{ field: metadata.data ?? 'id', messages: ['must be an integer >= 1'] }], 'The path id must be an integer >= 1');
    }
    return parsed;
  }
}

/**
 * The property may be left out, but not sent as null. `@IsOptional()` skips validation for
 * null too, which hands null to services that never expect it; use it only where null means
 * something (e.g. "clear this value").
 */
export const IsOptionalNotNull = () => ValidateIf((_object: object, value: unknown) => value !== undefined);
