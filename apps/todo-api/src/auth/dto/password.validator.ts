import { ValidateBy, type ValidationOptions } from 'class-validator';

export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_LENGTH = 128;

/**
 * A password of 8..128 characters, counted as Unicode code points (an emoji is one).
 * Every byte counts: the hasher pre-hashes, so bcrypt's 72-byte limit never truncates.
 */
export function IsPassword(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isPassword',
      validator: {
        validate: (value: unknown) => {
          if (typeof value !== 'string') return false;
          const length = [...value].length;
          return length >= PASSWORD_MIN_LENGTH && length <= PASSWORD_MAX_LENGTH;
        },
        defaultMessage: () => `$property must be a string of ${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters`,
      },
    },
    options,
  );
}

/** The OpenAPI description of a password property. */
export const PASSWORD_SCHEMA = { type: String, minLength: PASSWORD_MIN_LENGTH, maxLength: PASSWORD_MAX_LENGTH, format: 'password' } as const;
