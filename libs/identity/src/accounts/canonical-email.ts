import { createHash } from 'node:crypto';

/**
 * The one form of an e-mail address that identifies an account: signup stores it
 * (`users.email_canonical`, unique), login, password reset and beta grants look accounts up
 * by it, and every rate-limit counter keyed by an e-mail uses it. The database only stores
 * and compares it byte for byte, so no database collation (whose `lower()` differs from
 * JavaScript's, e.g. for `İ` U+0130) can let a spelling reach an account under another
 * counter.
 *
 * The form: trimmed, NFKC (compatibility characters such as fullwidth `ａ` or the ligature
 * `ﬁ` become their plain letters, so look-alike spellings cannot make a second account),
 * lower-cased with String.prototype.toLowerCase (locale-independent), and NFKC again (a
 * lower-cased letter may decompose). `İ` lower-cases to `i` + U+0307, so `alİce@x` is not
 * `alice@x`: a different address, with its own account and counters. Mail still goes to
 * the address as the user typed it at signup (`users.email`).
 */
export function canonicalEmail(email: string): string {
  return email.trim().normalize('NFKC').toLowerCase().normalize('NFKC');
}

/** A short digest of the canonical form, for counter keys (no address in the counter table). */
export function canonicalEmailDigest(email: string): string {
  return createHash('sha256').update(canonicalEmail(email)).digest('hex').slice(0, 32);
}
