import { createHash } from 'node:crypto';

/** The k-anonymity split of a password: the SHA-1's first five hex characters go out, the other 35 stay here. */
export function rangeKeyOf(password: string): { prefix: string; suffix: string } {
  const digest = createHash('sha1').update(password, 'utf8').digest('hex').toUpperCase();
  return { prefix: digest.slice(0, 5), suffix: digest.slice(5) };
}

/**
 * How often the suffix appears in a range answer (`SUFFIX:COUNT` lines, CRLF or LF). Padding lines
 * (`Add-Padding: true`) carry a count of 0 and so never count as a breach. 0 when absent.
 */
export function breachCountIn(rangeBody: string, suffix: string): number {
  const wanted = suffix.toUpperCase();
  for (const line of rangeBody.split('\n')) {
    const colon = line.indexOf(':');
    if (colon < 0 || line.slice(0, colon).trim().toUpperCase() !== wanted) continue;
    const count = Number.parseInt(line.slice(colon + 1).trim(), 10);
    return Number.isFinite(count) && count > 0 ? count : 0;
  }
  return 0;
}
