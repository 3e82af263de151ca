import { MaxLength, ValidateBy, type ValidationOptions } from 'class-validator';

const PASSWORD_MIN_LENGTH = 8;
const PASSWORD_MAX_LENGTH = 128;

/**
 * A password of 8..128 characters, counted as Unicode code points (an emoji is one).
 * Every byte counts: the hasher pre-hashes, so bcrypt's 72-byte limit never truncates.
 */
export function IsPassword(options?: ValidationOptions): PropertyDecorator {
  // A size rule first (two UTF-16 units per code point at most), so a megabyte is refused before it is counted.
  const bounded = MaxLength(PASSWORD_MAX_LENGTH * 2, { ...options, message: `$property must be a string of ${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters` });
  const counted = ValidateBy(
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
  return (target, property) => {
    bounded(target, property);
    counted(target, property);
  };
}

/** The OpenAPI description of a password property. */
export const PASSWORD_SCHEMA = { type: String, minLength: PASSWORD_MIN_LENGTH, maxLength: PASSWORD_MAX_LENGTH, format: 'password' } as const;
