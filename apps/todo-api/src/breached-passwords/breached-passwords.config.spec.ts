import { describe, expect, it } from '@jest/globals';
import { ConfigError } from '#libs/config';
import { loadBreachedPasswordsConfig, PUBLIC_PWNED_PASSWORDS_API } from './breached-passwords.config.js';

describe('loadBreachedPasswordsConfig', () => {
  it('checks against the public API in production and is off elsewhere unless set', () => {
    expect(loadBreachedPasswordsConfig({ NODE_ENV: 'production' })).toEqual({ rangeBaseUrl: PUBLIC_PWNED_PASSWORDS_API, timeoutMs: 1500 });
    expect(loadBreachedPasswordsConfig({ NODE_ENV: 'test' }).rangeBaseUrl).toBeUndefined();
    expect(loadBreachedPasswordsConfig({ NODE_ENV: 'development' }).rangeBaseUrl).toBeUndefined();
    expect(loadBreachedPasswordsConfig({ NODE_ENV: 'test', BREACHED_PASSWORDS_RANGE_URL: 'http://127.0.0.1:9/pwned/' }).rangeBaseUrl).toBe('http://127.0.0.1:9/pwned');
    expect(loadBreachedPasswordsConfig({ NODE_ENV: 'production', BREACHED_PASSWORDS_RANGE_URL: 'off' }).rangeBaseUrl).toBeUndefined();
  });

  it.each([
    ['BREACHED_PASSWORDS_RANGE_URL', 'ftp://mirror'],
    ['BREACHED_PASSWORDS_RANGE_URL', 'https://mirror.example/?key=1'],
    ['BREACHED_PASSWORDS_TIMEOUT_MS', '50'],
  ])('refuses a bad %s and names it', (variable, value) => {
    expect(() => loadBreachedPasswordsConfig({ NODE_ENV: 'test', [variable]: value })).toThrow(ConfigError);
    expect(() => loadBreachedPasswordsConfig({ NODE_ENV: 'test', [variable]: value })).toThrow(variable);
  });
});
