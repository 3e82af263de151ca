import { getMetadataStorage, ValidateIf, type ValidatorOptions } from 'class-validator';
import { ArgumentMetadata, ParseUUIDPipe, type Type, ValidationError, ValidationPipe } from '@nestjs/common';
import { AppException } from '../errors/app.exception.js';
import { ErrorCode } from '../errors/error-code.enum.js';

/** What class-validator keeps per rule (its ValidationMetadata, which the package does not export). */
export interface ValidationRule {
  type: string;
  target: unknown;
  propertyName: string;
  constraintCls?: unknown;
  constraints?: unknown[];
}

export interface FieldError {
  field: string;
  messages: string[];
}

/** Constraints that say the value has the wrong type: when one fails, range and length messages about it are noise. */
const TYPE_CONSTRAINTS = new Set(['isInt', 'isNumber', 'isString', 'isBoolean', 'isArray', 'isObject', 'nestedValidation']);

/** class-validator's default wording, in words a person reads; constraints not listed keep their (DTO's) message. */
export const VALIDATION_MESSAGES: Record<string, (field: string) => string> = {
  isInt: (field) => `${field} must be a whole number`,
  isNumber: (field) => `${field} must be a number`,
  isString: (field) => `${field} must be text (a JSON string)`,
  isBoolean: (field) => `${field} must be true or false`,
  isArray: (field) => `${field} must be a list (a JSON array)`,
  isObject: (field) => `${field} must be an object`,
  nestedValidation: (field) => `${field} must be an object`,
  isNotEmpty: (field) => `${field} must not be empty`,
  isEmail: (field) => `${field} must be an e-mail address`,
  isUuid: (field) => `${field} must be a UUID`,
  isDateString: (field) => `${field} must be a date and time in ISO 8601 form, e.g. 2026-03-14T09:26:53Z`,
  isIso8601: (field) => `${field} must be a date and time in ISO 8601 form, e.g. 2026-03-14T09:26:53Z`,
};

function messagesOf(error: ValidationError, field: string): string[] {
  const constraints = error.constraints ?? {};
  const names = Object.keys(constraints);
  // A property that is absent or null fails every rule on it; the only thing worth saying is that it is needed.
  if (error.value === undefined && names.length > 0 && !names.includes('whitelistValidation')) return [`${field} is required`];
  if (error.value === null && names.length > 0) return [`${field} must not be null`];
  const typeFailures = names.filter((name) => TYPE_CONSTRAINTS.has(name));
  const shown = typeFailures.length > 0 ? typeFailures : names;
  return shown.map((name) => {
    if (name === 'whitelistValidation') return `${field} is not a known property here`;
    return VALIDATION_MESSAGES[name]?.(field) ?? withField(constraints[name], error.property, field);
  });
}

/** The message with its leading property name replaced by the field's full path (no pattern built from input). */
function withField(message: string, property: string, field: string): string {
  const rest = message.slice(property.length);
  return message.startsWith(property) && !/\w/.test(rest.charAt(0)) ? `${field}${rest}` : message;
}

/**
 * Constraints that bound the size of a value. With `stopAtFirstError` a property stops at its
 * first failed constraint, and constraints run type checks first, then these, then the rest
 * (patterns, formats, custom rules): no pattern ever sees a string longer than its limit.
 */
const SIZE_CONSTRAINTS = new Set(['maxLength', 'minLength', 'isLength', 'isByteLength', 'arrayMaxSize', 'arrayMinSize', 'arrayNotEmpty', 'max', 'min', 'isNotEmpty', 'isIn', 'equals']);

/** The order in which a property's constraints run: 0 type, 1 size, 2 everything else. */
export function constraintRank(name: string): number {
  if (TYPE_CONSTRAINTS.has(name)) return 0;
  return SIZE_CONSTRAINTS.has(name) ? 1 : 2;
}

/** The name of a validation rule as it appears in `constraints` (`matches`, `maxLength`, a custom validator's name). */
export function constraintNameOf(rule: ValidationRule): string {
  if (rule.type !== 'customValidation') return rule.type;
  return getMetadataStorage().getTargetValidatorConstraints(rule.constraintCls as (...args: unknown[]) => unknown)[0]?.name ?? rule.type;
}

/**
 * Puts every DTO's rules in running order (type, size, the rest), whatever order the decorators
 * are written in: class-validator runs them in the order they were registered (the decorator
 * nearest the property first). A stable sort: rules of one rank keep their order.
 */
export function orderConstraintsCheapFirst(): void {
  const storage = getMetadataStorage() as unknown as { validationMetadatas?: Map<unknown, ValidationRule[]> };
  if (!(storage.validationMetadatas instanceof Map)) throw new Error('class-validator no longer keeps validationMetadatas: update orderConstraintsCheapFirst');
  for (const rules of storage.validationMetadatas.values()) rules.sort((a, b) => constraintRank(constraintNameOf(a)) - constraintRank(constraintNameOf(b)));
}

function flatten(errors: ValidationError[], parent = ''): FieldError[] {
  return errors.flatMap((error) => {
    const field = parent ? `${parent}.${error.property}` : error.property;
    const own = error.constraints ? [{ field, messages: messagesOf(error, field) }] : [];
    return [...own, ...flatten(error.children ?? [], field)];
  });
}

/** Spellings of "the next page" that clients bring from other APIs: a route that pages names its own. */
const PAGING_NAMES = ['since', 'cursor', 'after', 'page', 'offset', 'next', 'nextCursor', 'pageToken', 'startingAfter'];

/** The properties a DTO class declares (its validation rules). */
function knownProperties(metatype: ArgumentMetadata['metatype']): string[] {
  if (!metatype) return [];
  return [...new Set(getMetadataStorage().getTargetValidationMetadatas(metatype, '', true, false).map((rule) => rule.propertyName))];
}

/** Turns "not a known property" into a hint when the route has a property for what the client meant (paging). */
function withHints(fields: FieldError[], metadata: ArgumentMetadata): FieldError[] {
  const known = knownProperties(metadata.metatype);
  const paging = known.find((name) => PAGING_NAMES.includes(name));
  const where = metadata.type === 'query' ? 'query parameter' : 'property';
  return fields.map((entry) => {
    if (!entry.messages.some((message) => message.endsWith('is not a known property here'))) return entry;
    const hint =
      paging && PAGING_NAMES.includes(entry.field) && entry.field !== paging
        ? `${entry.field} is not a ${where} of this route: it pages with ${paging} (pass the nextCursor of the previous page as ${paging})`
        : `${entry.field} is not a ${where} of this route${known.length > 0 ? ` (known: ${known.join(', ')})` : ''}`;
    return { field: entry.field, messages: [hint] };
  });
}

/** The error's message: the one problem when there is one, else the fields in question. */
function summaryOf(fields: FieldError[]): string {
  if (fields.length === 1 && fields[0].messages.length === 1) return fields[0].messages[0];
  if (fields.length === 0) return 'The request is invalid';
  return `The request is invalid: ${fields.map((entry) => entry.field).join(', ')}`;
}

export function validationException(fields: FieldError[], message = summaryOf(fields)): AppException {
  return new AppException(ErrorCode.VALIDATION_ERROR, message, { fields });
}

function isFieldList(details: unknown): details is { fields: FieldError[] } {
  return typeof details === 'object' && details !== null && Array.isArray((details as { fields?: unknown }).fields);
}

/**
 * Path parameters reach their own pipe (UUID_PARAM, PositiveIntPipe) as the raw string:
 * ValidationPipe would otherwise turn `1e3` or `0x1A` into a number first.
 */
class StrictParamValidationPipe extends ValidationPipe {
  /**
   * DTO classes an empty object passes (a GET without query parameters, most often). The rules
   * are pure functions of the object (no validator reads a clock or the database), so an empty
   * object's verdict is the same every time: checked once per class, then not again. That
   * check allocated about 13 KB per request (class-validator regroups its metadata per call).
   */
  private readonly passWhenEmpty = new Set<unknown>();
  /** DTO classes seen since the rules were last put in running order (a class is loaded once, at import). */
  private readonly ordered = new Set<unknown>();

  protected override transformPrimitive(value: unknown, metadata: ArgumentMetadata): unknown {
    return metadata.type === 'param' ? value : super.transformPrimitive(value, metadata);
  }

  protected override async validate(object: object, validatorOptions?: ValidatorOptions): Promise<ValidationError[]> {
    const empty = Object.keys(object).length === 0;
    if (empty && this.passWhenEmpty.has(object.constructor)) return [];
    if (!this.ordered.has(object.constructor)) {
      orderConstraintsCheapFirst();
      this.ordered.add(object.constructor);
    }
    const errors = await super.validate(object, validatorOptions);
    if (empty && errors.length === 0) this.passWhenEmpty.add(object.constructor);
    return errors;
  }

  /** validator.js (IsEmail, byte-length checks) throws URIError on a lone UTF-16 surrogate (JSON `"\ud800"`): that is bad input, not a fault. */
  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    try {
      return await super.transform(value, metadata);
    } catch (error) {
      if (error instanceof AppException && error.code === ErrorCode.VALIDATION_ERROR && isFieldList(error.details)) {
        throw validationException(withHints(error.details.fields, metadata));
      }
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
    // A property stops at its first failed rule, and rules run type, size, then patterns
    // (orderConstraintsCheapFirst): a 1 MiB string fails its length check and no pattern runs on it.
    stopAtFirstError: true,
    transform: true,
    transformOptions: { enableImplicitConversion: false },
    // The value is needed to tell "missing" from "wrong"; it never reaches the answer.
    validationError: { target: false, value: true },
    exceptionFactory: (errors) => validationException(flatten(errors)),
  });
}

/** Path parameter that must be a UUID; anything else is 400 VALIDATION_ERROR. */
export const UUID_PARAM = new ParseUUIDPipe({
  exceptionFactory: () => validationException([{ field: 'id', messages: ['id must be a UUID'] }], 'The path id must be a UUID'),
});

/**
 * The property may be left out, but not sent as null. `@IsOptional()` skips validation for
 * null too, which hands null to services that never expect it; use it only where null means
 * something (e.g. "clear this value").
 */
export const IsOptionalNotNull = () => ValidateIf((_object: object, value: unknown) => value !== undefined);

/** The one pipe `validateAsBody` runs: the global pipe's options, rules and words. */
let bodyPipe: ValidationPipe | undefined;

/**
 * Validates `value` as the JSON body of a route taking `dto` would be, with the global pipe's
 * rules and words (400 VALIDATION_ERROR, `details.fields`): for a surface that takes the same
 * input another way (an MCP tool's arguments), so both refuse alike. Only the properties the DTO
 * declares are looked at; what else the value holds is the caller's to judge.
 */
export async function validateAsBody(dto: Type<object>, value: Record<string, unknown>): Promise<void> {
  const known = new Set(knownProperties(dto));
  const body = Object.fromEntries(Object.entries(value).filter(([key]) => known.has(key)));
  bodyPipe ??= createValidationPipe();
  await bodyPipe.transform(body, { type: 'body', metatype: dto });
}
