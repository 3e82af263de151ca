import { clientNetworkOf } from './client-network.js';

/**
 * The one definition of a rate-limit counter's key: `<bucket>:<tracker>`, the tracker being
 * who is counted (`user:<id>`, `session:<id>`, `oauth-grant:<id>`, `ip:<client network>` (an IPv4
 * address, an IPv6 /64: clientNetworkOf), `email:<digest
 * of the canonical address>`, a client and an e-mail together, `ip:<address>:<digest>`, or an
 * app's own credential: `<principal kind>:<credential id>` (credentialTrackerOf) or
 * `<principal kind>-token:<token budget>` (tokenTrackerOf)). Both stores keep it as is (Redis behind
 * REDIS_KEY_PREFIX); the credential repositories' counting statements (countingLookupSql) build
 * the same tracker with trackerSql / credentialTrackerSql / tokenTrackerSql, rendered from the same definitions.
 */
export const TRACKER_PREFIX = {
  /** An OAuth grant (one client, one account): its budget is its own, like an app's credential's. */
  'oauth-grant': 'oauth-grant:',
  user: 'user:',
  session: 'session:',
  ip: 'ip:',
  /** An e-mail address as typed into a public form (known or not): its canonical digest, never the address. */
  email: 'email:',
} as const;

export type TrackerKind = keyof typeof TRACKER_PREFIX;

/**
 * The tracker of one `kind` and `id`. A client address (`ip`) is counted as its network
 * (clientNetworkOf), wherever it is counted: an IPv6 host holds a whole /64. (No counting
 * statement in SQL counts per client address, so trackerSql has no such step.)
 */
export function rateLimitTrackerOf(kind: TrackerKind, id: string): string {
  return TRACKER_PREFIX[kind] + (kind === 'ip' ? clientNetworkOf(id) : id);
}

/** The tracker of a client address (Express's `request.ip`, null when unknown): its network. */
export function clientTrackerOf(ip: string | null | undefined): string {
  return rateLimitTrackerOf('ip', ip ?? 'unknown');
}

/** A client address and an e-mail digest together: attempts of one caller at one account. */
export function rateLimitIpAndEmailTracker(ip: string | null, emailDigest: string): string {
  return `${clientTrackerOf(ip)}:${emailDigest}`;
}

export function rateLimitCounterKey(bucket: string, tracker: string): string {
  return `${bucket}:${tracker}`;
}

/** An app's own credential (a principal with a `credentialId`, see OwnCredential), counted per credential: `<kind>:<credentialId>`. */
export function credentialTrackerOf(principalKind: string, credentialId: string): string {
  return `${principalKind}:${credentialId}`;
}

/**
 * A token credential (a principal with a `tokenBudget`), counted per budget: `<kind>-token:<tokenBudget>`.
 * The app names the budget (e.g. a site and the token's kind), so a rotated token keeps spending it.
 */
export function tokenTrackerOf(principalKind: string, tokenBudget: string): string {
  return `${principalKind}-token:${tokenBudget}`;
}

/** rateLimitTrackerOf as an SQL expression: `kindSql` yields a TrackerKind, `idSql` the id (over the looked-up row). */
export function trackerSql(kindSql: string, idSql: string): string {
  const prefixes = Object.entries(TRACKER_PREFIX)
    .map(([kind, prefix]) => `WHEN '${kind}' THEN '${prefix}'`)
    .join(' ');
  return `(CASE ${kindSql} ${prefixes} END) || (${idSql})::text`;
}

/** credentialTrackerOf as an SQL expression. */
export function credentialTrackerSql(principalKindSql: string, credentialIdSql: string): string {
  return `(${principalKindSql}) || ':' || (${credentialIdSql})::text`;
}

/** tokenTrackerOf as an SQL expression. */
export function tokenTrackerSql(principalKindSql: string, tokenBudgetSql: string): string {
  return `(${principalKindSql}) || '-token:' || (${tokenBudgetSql})::text`;
}

/** The counter key as an SQL expression: `bucketParameter` holds rateLimitCounterKey(bucket, ''). */
export function counterKeySql(bucketParameter: string, trackerExpression: string): string {
  return `${bucketParameter}::text || ${trackerExpression}`;
}
