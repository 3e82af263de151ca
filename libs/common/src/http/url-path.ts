/** Request URLs' parts: the path without its query, the query alone, paths without slashes at either end. */

/**
 * The value without its trailing slashes. A loop, not `replace(/\/+$/, '')`: that pattern is tried
 * at every slash of a run, so a long run of slashes costs quadratic time.
 */
export function trimTrailingSlashes(value: string): string {
  let end = value.length;
  while (end > 0 && value.charCodeAt(end - 1) === 47) end--;
  return value.slice(0, end);
}

/** The value without its leading and trailing slashes. */
export function trimSlashes(value: string): string {
  let start = 0;
  while (start < value.length && value.charCodeAt(start) === 47) start++;
  return trimTrailingSlashes(value.slice(start));
}

/** The URL's path: everything before its query string (which may carry a secret, and never names a route). */
export function pathBeforeQuery(url: string): string {
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

/** The URL's query string without its `?` (empty when there is none). */
export function queryOf(url: string): string {
  const query = url.indexOf('?');
  return query === -1 ? '' : url.slice(query + 1);
}
