import { createHash, randomInt } from 'node:crypto';
import { crc32 } from 'node:zlib';

export const API_KEY_PREFIX = 'tdk_';
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const SECRET_LENGTH = 32;
const CHECKSUM_LENGTH = 6;
/** Characters of the key shown as `prefix` to identify it. */
const API_KEY_DISPLAY_PREFIX_LENGTH = 12;
const API_KEY_PATTERN = new RegExp(`^${API_KEY_PREFIX}[0-9A-Za-z]{${SECRET_LENGTH + CHECKSUM_LENGTH}}$`);

function base62(value: number, width: number): string {
  let out = '';
  let rest = value;
  for (let i = 0; i < width; i++) {
    out = ALPHABET[rest % 62] + out;
    rest = Math.floor(rest / 62);
  }
  return out;
}

function checksumOf(body: string): string {
  return base62(crc32(body), CHECKSUM_LENGTH);
}

export interface GeneratedApiKey {
  /** The full secret, shown to the user once. */
  key: string;
  prefix: string;
  hash: string;
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** `tdk_` + 32 uniformly random base62 characters (~190 bits) + a 6-character CRC32 checksum. */
export function generateApiKey(): GeneratedApiKey {
  let secret = '';
  for (let i = 0; i < SECRET_LENGTH; i++) secret += ALPHABET[randomInt(62)];
  const body = API_KEY_PREFIX + secret;
  const key = body + checksumOf(body);
  return { key, prefix: key.slice(0, API_KEY_DISPLAY_PREFIX_LENGTH), hash: hashApiKey(key) };
}

/** Format and checksum check: rejects typos and non-keys without a database lookup. */
export function isWellFormedApiKey(candidate: string): boolean {
  if (!API_KEY_PATTERN.test(candidate)) return false;
  const body = candidate.slice(0, -CHECKSUM_LENGTH);
  return checksumOf(body) === candidate.slice(-CHECKSUM_LENGTH);
}
