/** The process environment, or the variables a test passes in its place. */
export type Env = Record<string, string | undefined>;

/** A variable that is set but wrong: the process refuses to start and says which and why. */
export class ConfigError extends Error {
  constructor(readonly variable: string, problem: string) {
    super(`Invalid configuration: ${variable} ${problem}`);
    this.name = 'ConfigError';
  }
}

/*
 * The checks every setting goes through, whichever service reads it: libs/config reads what both
 * services share, an app reads its own variables with these (todo-api's billing.config.ts).
 */

/** The trimmed value; unset and blank are the same. */
export function readVariable(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

export function readUrlVariable(env: Env, name: string, protocols: string[]): string | undefined {
  const value = readVariable(env, name);
  if (value === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(name, 'must be a URL');
  }
  if (!protocols.includes(url.protocol)) throw new ConfigError(name, `must use one of ${protocols.join(', ')}`);
  return value;
}

export function readIntVariable(env: Env, name: string, fallback: number, min: number, max: number): number {
  const value = readVariable(env, name);
  if (value === undefined) return fallback;
  if (!/^[0-9]+$/.test(value)) throw new ConfigError(name, 'must be a whole number');
  const parsed = Number(value);
  if (parsed < min || parsed > max) throw new ConfigError(name, `must be between ${min} and ${max}`);
  return parsed;
}
