import { trimTrailingSlashes } from '#libs/common';
import { ConfigError, readIntVariable, readUrlVariable, readVariable, type Env, type NodeEnv } from '#libs/config';

/** Have I Been Pwned's Pwned Passwords range API: `GET <base>/range/<first five hex of the SHA-1>`. */
export const PUBLIC_PWNED_PASSWORDS_API = 'https://api.pwnedpasswords.com';

/** todo-api's breached-password check (BREACHED_PASSWORDS_*), which feedback-export never reads. */
export interface BreachedPasswordsConfig {
  /** BREACHED_PASSWORDS_RANGE_URL as set: a base URL, `off`, or unset (the environment's default, rangeBaseUrlOf). */
  rangeUrl?: string;
  /** How long one range lookup may take before the check gives up and lets the password through. */
  timeoutMs: number;
}

/** Injection token of the validated BreachedPasswordsConfig (provided by BreachedPasswordsConfigModule.forRoot). */
export const BREACHED_PASSWORDS_CONFIG = Symbol('BREACHED_PASSWORDS_CONFIG');

/**
 * BREACHED_PASSWORDS_RANGE_URL: the range API's base (the operator's choice: the public API or a mirror of the
 * corpus on the private network); `off` turns the check off. BREACHED_PASSWORDS_TIMEOUT_MS: 100..10000, 1500.
 */
export function loadBreachedPasswordsConfig(env: Env = process.env): BreachedPasswordsConfig {
  const timeoutMs = readIntVariable(env, 'BREACHED_PASSWORDS_TIMEOUT_MS', 1500, 100, 10_000);
  if (readVariable(env, 'BREACHED_PASSWORDS_RANGE_URL') === 'off') return { rangeUrl: 'off', timeoutMs };
  const url = readUrlVariable(env, 'BREACHED_PASSWORDS_RANGE_URL', ['http:', 'https:']);
  if (url !== undefined && (new URL(url).search !== '' || new URL(url).hash !== '')) {
    throw new ConfigError('BREACHED_PASSWORDS_RANGE_URL', 'must be a base URL without query or fragment (`/range/<prefix>` is appended)');
  }
  return { rangeUrl: url === undefined ? undefined : trimTrailingSlashes(url), timeoutMs };
}

/** The base the check asks, or none: unset means the public API in production and no check in development and test. */
export function rangeBaseUrlOf(config: BreachedPasswordsConfig, nodeEnv: NodeEnv): string | undefined {
  if (config.rangeUrl === 'off') return undefined;
  return config.rangeUrl ?? (nodeEnv === 'production' ? PUBLIC_PWNED_PASSWORDS_API : undefined);
}
