import { createHash, randomBytes } from 'node:crypto';

/** The kinds of export token and the prefix each secret starts with. */
export type FeedbackTokenKind = 'read' | 'write' | 'portfolio';

const TOKEN_PREFIX: Record<FeedbackTokenKind, string> = { read: 'sk_', write: 'wk_', portfolio: 'ok_' };

/** 32 random bytes as base64url: 43 characters after the prefix. */
const TOKEN_PATTERN = /^(sk|wk|ok)_[A-Za-z0-9_-]{43}$/;

export interface GeneratedToken {
  /** The full secret, shown once. */
  token: string;
  hash: string;
}

export function hashFeedbackToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export function generateFeedbackToken(kind: FeedbackTokenKind): GeneratedToken {
  const token = TOKEN_PREFIX[kind] + randomBytes(32).toString('base64url');
  return { token, hash: hashFeedbackToken(token) };
}

/** Shape check before any lookup; the prefix is only a hint, the stored kind decides. */
export function isWellFormedFeedbackToken(candidate: string): boolean {
  return TOKEN_PATTERN.test(candidate);
}

/** The public key the widget embeds: identifies a site, grants nothing but submitting feedback. */
export function generateSiteKey(): string {
  return 'site_' + randomBytes(18).toString('base64url');
}
