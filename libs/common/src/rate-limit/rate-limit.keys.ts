/**
 * The one definition of a rate-limit counter's key: `<bucket>:<tracker>`, the tracker being
 * who is counted (`api-key:<id>`, `user:<id>`, `session:<id>`, `ip:<address>`, `email:<digest of
 * the canonical address>`, a client and an e-mail together, `ip:<address>:<digest>`, or an app's
 * token credential, `<principal kind>-token:<token id>` such as `site-token:<id>`). Both stores keep
 * it as is (Redis behind REDIS_KEY_PREFIX); the credential repositories' counting statements (see
 * CountingLookup) build the same tracker with trackerSql / tokenTrackerSql, rendered from the same definitions.
 */
export const TRACKER_PREFIX = {
  'api-key': 'api-key:',
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

/** A token credential (a principal with a `tokenId`), counted per token: `<kind>-token:<tokenId>`. */
export function tokenTrackerOf(principalKind: string, tokenId: string): string {
  return `${principalKind}-token:${tokenId}`;
}

/** rateLimitTrackerOf as an SQL expression: `kindSql` yields a TrackerKind, `idSql` the id (over the looked-up row). */
export function trackerSql(kindSql: string, idSql: string): string {
  const prefixes = Object.entries(TRACKER_PREFIX)
    .map(([kind, prefix]) => `WHEN '${kind}' THEN '${prefix}'`)
    .join(' ');
  return `(CASE ${kindSql} ${prefixes} END) || (${idSql})::text`;
}

/** tokenTrackerOf as an SQL expression. */
export function tokenTrackerSql(principalKindSql: string, tokenIdSql: string): string {
  return `(${principalKindSql}) || '-token:' || (${tokenIdSql})::text`;
}

/** The counter key as an SQL expression: `bucketParameter` holds rateLimitCounterKey(bucket, ''). */
export function counterKeySql(bucketParameter: string, trackerExpression: string): string {
  return `${bucketParameter}::text || ${trackerExpression}`;
}
