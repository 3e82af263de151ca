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
