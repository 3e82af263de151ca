import { describe, expect, it } from '@jest/globals';
import { clientNetworkOf } from './client-network.js';

describe('clientNetworkOf', () => {
  it('keeps an IPv4 address as it is', () => {
    expect(clientNetworkOf('192.0.2.1')).toBe('192.0.2.1');
  });

  it('counts an IPv6 address as its /64, whatever its spelling', () => {
    expect(clientNetworkOf('2001:db8:1:2::1')).toBe('2001:db8:1:2::/64');
    expect(clientNetworkOf('2001:0DB8:0001:0002:ffff:ffff:ffff:ffff')).toBe('2001:db8:1:2::/64');
    expect(clientNetworkOf('2001:db8:1:3::1')).toBe('2001:db8:1:3::/64');
    expect(clientNetworkOf('::1')).toBe('0:0:0:0::/64');
    expect(clientNetworkOf('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(clientNetworkOf('2001:db8::')).toBe('2001:db8:0:0::/64');
  });

  it('counts an IPv4-mapped IPv6 address as the IPv4 address', () => {
    expect(clientNetworkOf('::ffff:192.0.2.7')).toBe('192.0.2.7');
    expect(clientNetworkOf('::FFFF:c000:0207')).toBe('192.0.2.7');
    expect(clientNetworkOf('0:0:0:0:0:ffff:192.0.2.7')).toBe('192.0.2.7');
  });

  it('returns what is not an address unchanged', () => {
    expect(clientNetworkOf('unknown')).toBe('unknown');
    expect(clientNetworkOf('')).toBe('');
  });
});
