/**
 * The one definition of a rate-limit counter's key: `<bucket>:<tracker>`, the tracker being
 * who is counted (`api-key:<id>`, `site-token:<id>`, `portfolio-token:<id>`, `oauth-grant:<id>`, `user:<id>`,
 * `session:<id>`, `ip:<address>`, `email:<digest of the canonical address>`, or a client and an
 * e-mail together, `ip:<address>:<digest>`). Both stores keep it as is (Redis behind REDIS_KEY_PREFIX); credential
 * lookups that count in SQL build the same key with counterKeySql from the same table.
 */
export const TRACKER_PREFIX = {
  'api-key': 'api-key:',
  site: 'site-token:',
  portfolio: 'portfolio-token:',
  /** An OAuth grant (one client, one account): its budget is its own, like an API key's. */
  'oauth-grant': 'oauth-grant:',
  user: 'user:',
  session: 'session:',
  ip: 'ip:',
  /** An e-mail address as typed into a public form (known or not): its canonical digest, never the address. */
  email: 'email:',
} as const;

export type TrackerKind = keyof typeof TRACKER_PREFIX;

export function rateLimitTrackerOf(kind: TrackerKind, id: string): string {
  return TRACKER_PREFIX[kind] + id;
}

/** A client address and an e-mail digest together: attempts of one caller at one account. */
export function rateLimitIpAndEmailTracker(ip: string | null, emailDigest: string): string {
  return `${rateLimitTrackerOf('ip', ip ?? 'unknown')}:${emailDigest}`;
}

export function rateLimitCounterKey(bucket: string, tracker: string): string {
  return `${bucket}:${tracker}`;
}

/**
 * The same key as an SQL expression: `bucketParameter` holds rateLimitCounterKey(bucket, ''),
 * `kindSql` yields a TrackerKind and `idSql` the id (both over the looked-up row).
 */
export function counterKeySql(bucketParameter: string, kindSql: string, idSql: string): string {
  const prefixes = Object.entries(TRACKER_PREFIX)
    .map(([kind, prefix]) => `WHEN '${kind}' THEN '${prefix}'`)
    .join(' ');
  return `${bucketParameter}::text || (CASE ${kindSql} ${prefixes} END) || (${idSql})::text`;
}
