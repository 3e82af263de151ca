/**
 * The one definition of a rate-limit counter's key: `<bucket>:<tracker>`, the tracker being
 * who is counted (`api-key:<id>`, `site-token:<id>`, `portfolio-token:<id>`, `user:<id>`,
 * `ip:<address>`). Both stores keep it as is (Redis behind REDIS_KEY_PREFIX); credential
 * lookups that count in SQL build the same key with counterKeySql from the same table.
 */
export const TRACKER_PREFIX = {
  'api-key': 'api-key:',
  site: 'site-token:',
  portfolio: 'portfolio-token:',
  user: 'user:',
  ip: 'ip:',
} as const;

export type TrackerKind = keyof typeof TRACKER_PREFIX;

export function rateLimitTrackerOf(kind: TrackerKind, id: string): string {
  return TRACKER_PREFIX[kind] + id;
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
