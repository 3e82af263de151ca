import { describe, expect, it } from '@jest/globals';
import { deviceName } from './device-name.js';

describe('deviceName', () => {
  it.each([
    ['Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36', 'Chrome 131 on macOS'],
    ['Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0', 'Firefox 133 on Windows'],
    ['Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1', 'Safari 17 on iOS'],
    ['Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36', 'Chrome 131 on Android'],
    ['Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.2903.86', 'Microsoft Edge 131 on Windows'],
    ['Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/131.0.0.0 Safari/537.36', 'Chrome 131 on Linux'],
  ])('names a browser and its system: %s', (userAgent, name) => {
    expect(deviceName(userAgent)).toBe(name);
  });

  it('names what it recognises of a client that is not a known browser', () => {
    expect(deviceName('MyAgent/2.5 (Linux x86_64)')).toBe('MyAgent 2 on Linux');
    expect(deviceName('App (iPhone; iOS 17.5)')).toBe('A browser on iOS');
  });

  it('is null when nothing is recognised, or there is no User-Agent', () => {
    expect(deviceName('curl/8.5.0')).toBeNull();
    expect(deviceName('Other device 1.0')).toBeNull();
    expect(deviceName('')).toBeNull();
    expect(deviceName(null)).toBeNull();
    expect(deviceName(undefined)).toBeNull();
  });
});
