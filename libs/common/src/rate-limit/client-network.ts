import { isIPv4, isIPv6 } from 'node:net';

/**
 * The network a client address is counted as by per-IP budgets: an IPv4 address is itself; an
 * IPv6 address is its /64 (one host, one customer line, usually holds a whole /64, 2⁶⁴
 * addresses), written `<first four groups>::/64` in canonical lower-case hex; an IPv4-mapped
 * IPv6 address (`::ffff:192.0.2.1`, how a dual-stack socket shows an IPv4 client) is the IPv4
 * address. Anything else (no address, an unparsable value) is returned as it came.
 */
export function clientNetworkOf(address: string): string {
  const bare = address.includes('%') ? address.slice(0, address.indexOf('%')) : address;
  if (isIPv4(bare)) return bare;
  if (!isIPv6(bare)) return address;
  const groups = ipv6Groups(bare);
  if (isIpv4Mapped(groups)) return `${groups[6] >> 8}.${groups[6] & 0xff}.${groups[7] >> 8}.${groups[7] & 0xff}`;
  return `${groups.slice(0, 4).map((group) => group.toString(16)).join(':')}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address (`::` expanded, a dotted IPv4 tail converted). */
function ipv6Groups(address: string): number[] {
  let text = address.toLowerCase();
  const lastColon = text.lastIndexOf(':');
  if (text.includes('.', lastColon)) {
    const [a, b, c, d] = text.slice(lastColon + 1).split('.').map(Number);
    text = `${text.slice(0, lastColon + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::');
  const parse = (part: string | undefined) => (part ? part.split(':').map((group) => parseInt(group, 16)) : []);
  const front = parse(head);
  if (tail === undefined) return front;
  const back = parse(tail);
  return [...front, ...Array<number>(8 - front.length - back.length).fill(0), ...back];
}

function isIpv4Mapped(groups: number[]): boolean {
  return groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff;
}
