import { describe, expect, it } from '@jest/globals';
import { ConfigError } from '#libs/config';
import { loadBreachedPasswordsConfig, PUBLIC_PWNED_PASSWORDS_API, rangeBaseUrlOf } from './breached-passwords.config.js';

describe('loadBreachedPasswordsConfig', () => {
  it('checks against the public API in production and is off elsewhere unless set', () => {
    expect(loadBreachedPasswordsConfig({})).toEqual({ rangeUrl: undefined, timeoutMs: 1500 });
    expect(rangeBaseUrlOf(loadBreachedPasswordsConfig({}), 'production')).toBe(PUBLIC_PWNED_PASSWORDS_API);
    expect(rangeBaseUrlOf(loadBreachedPasswordsConfig({}), 'test')).toBeUndefined();
    expect(rangeBaseUrlOf(loadBreachedPasswordsConfig({}), 'development')).toBeUndefined();
    expect(rangeBaseUrlOf(loadBreachedPasswordsConfig({ BREACHED_PASSWORDS_RANGE_URL: 'http://127.0.0.1:9/pwned/' }), 'test')).toBe('http://127.0.0.1:9/pwned');
    expect(rangeBaseUrlOf(loadBreachedPasswordsConfig({ BREACHED_PASSWORDS_RANGE_URL: 'off' }), 'production')).toBeUndefined();
  });

  it.each([
    ['BREACHED_PASSWORDS_RANGE_URL', 'ftp://mirror'],
    ['BREACHED_PASSWORDS_RANGE_URL', 'https://mirror.example/?key=1'],
    ['BREACHED_PASSWORDS_TIMEOUT_MS', '50'],
  ])('refuses a bad %s and names it', (variable, value) => {
    expect(() => loadBreachedPasswordsConfig({ [variable]: value })).toThrow(ConfigError);
    expect(() => loadBreachedPasswordsConfig({ [variable]: value })).toThrow(variable);
  });
});
