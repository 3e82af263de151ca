import { createHash, randomBytes } from 'node:crypto';
import { SecretSealer } from '#libs/common';

/** 32 random bytes as base64url: 256 bits, 43 characters. */
export const SHARE_TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export function generateShareToken(): string {
  return randomBytes(32).toString('base64url');
}

/** The lookup key of a share token: only this and the sealed form are stored. */
export function hashShareToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** Seals share tokens at rest: the link endpoint hands the same link out again, so a one-way hash alone cannot do. */
export function shareTokenSealer(serviceSecret: string): SecretSealer {
  return new SecretSealer(serviceSecret, 'feedback-export', 'question-share-token-v1');
}
