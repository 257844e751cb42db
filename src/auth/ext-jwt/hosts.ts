/**
 * Where a JWKS may be fetched from (OpenZiti advisory GHSA-whjr-3j94-gw3c: a signer's endpoint must not
 * turn the controller into a proxy into its own network). Pure functions: the fetcher applies them to the
 * endpoint, to every redirect, and (on Node, where names can be resolved) to the addresses a name has.
 */

/** IPv4 ranges that are not the public internet: this host, private networks, link-local (cloud metadata), CGNAT, multicast, reserved. */
const PRIVATE_V4: [number, number][] = [
  [0x00000000, 8], // 0.0.0.0/8 "this network"
  [0x0a000000, 8], // 10/8
  [0x64400000, 10], // 100.64/10 carrier-grade NAT
  [0x7f000000, 8], // 127/8 loopback
  [0xa9fe0000, 16], // 169.254/16 link-local, incl. 169.254.169.254 metadata
  [0xac100000, 12], // 172.16/12
  [0xc0000000, 24], // 192.0.0/24 IETF protocol assignments
  [0xc0000200, 24], // 192.0.2/24 documentation
  [0xc0a80000, 16], // 192.168/16
  [0xc6120000, 15], // 198.18/15 benchmarking
  [0xc6336400, 24], // 198.51.100/24 documentation
  [0xcb007100, 24], // 203.0.113/24 documentation
  [0xe0000000, 4], // 224/4 multicast
  [0xf0000000, 4], // 240/4 reserved, broadcast
];

function parseV4(host: string): number | undefined {
  const parts = host.split('.');
  if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255)) return undefined;
  return parts.reduce((n, p) => n * 256 + Number(p), 0);
}

function privateV4(n: number): boolean {
  return PRIVATE_V4.some(([base, bits]) => Math.floor(n / 2 ** (32 - bits)) === Math.floor(base / 2 ** (32 - bits)));
}

/** The 8 16-bit groups of an IPv6 address (with an embedded IPv4 tail), or undefined. */
function parseV6(host: string): number[] | undefined {
  let text = host.toLowerCase();
  const zone = text.indexOf('%');
  if (zone >= 0) text = text.slice(0, zone);
  // An embedded IPv4 tail (::ffff:1.2.3.4) becomes its two groups.
  const dotted = /^(.*:)(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const v4 = parseV4(dotted[2]);
    if (v4 === undefined) return undefined;
    text = `${dotted[1]}${Math.floor(v4 / 65536).toString(16)}:${(v4 % 65536).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const groups = (s: string) => (s === '' ? [] : s.split(':').map((g) => (/^[0-9a-f]{1,4}$/.test(g) ? parseInt(g, 16) : NaN)));
  const head = groups(halves[0]);
  const rest = halves.length === 2 ? groups(halves[1]) : [];
  const fill = 8 - head.length - rest.length;
  if (halves.length === 1 ? fill !== 0 : fill < 0) return undefined;
  const all = [...head, ...Array(halves.length === 2 ? fill : 0).fill(0), ...rest];
  return all.length === 8 && all.every((g) => Number.isInteger(g)) ? all : undefined;
}

function privateV6(g: number[]): boolean {
  const v4 = (hi: number, lo: number) => privateV4(hi * 65536 + lo);
  if (g.slice(0, 7).every((x) => x === 0) && g[7] <= 1) return true; // :: and ::1
  if (g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff) return v4(g[6], g[7]); // IPv4-mapped
  if (g.slice(0, 6).every((x) => x === 0)) return v4(g[6], g[7]); // IPv4-compatible (deprecated)
  if (g[0] === 0x64 && g[1] === 0xff9b) return v4(g[6], g[7]); // NAT64
  if ((g[0] & 0xfe00) === 0xfc00) return true; // fc00::/7 unique local (incl. fd00:ec2::254 metadata)
  if ((g[0] & 0xffc0) === 0xfe80) return true; // fe80::/10 link-local
  if ((g[0] & 0xffc0) === 0xfec0) return true; // fec0::/10 site-local (deprecated)
  if ((g[0] & 0xff00) === 0xff00) return true; // multicast
  if (g[0] === 0x2001 && g[1] === 0x0db8) return true; // documentation
  return false;
}

/** True when an IP address (v4 or v6, without brackets) is loopback, private, link-local, metadata or reserved. */
export function isPrivateAddress(address: string): boolean {
  const v4 = parseV4(address);
  if (v4 !== undefined) return privateV4(v4);
  const v6 = parseV6(address);
  // Something that is neither is not an address we can vouch for.
  return v6 === undefined ? true : privateV6(v6);
}

export function isIpLiteral(host: string): boolean {
  return parseV4(host) !== undefined || parseV6(host) !== undefined;
}

/** Names that only ever mean something inside a network: single labels, localhost, internal and mDNS suffixes. */
const INTERNAL_SUFFIXES = ['.localhost', '.local', '.internal', '.intranet', '.lan', '.home.arpa', '.corp', '.private'];

function isInternalName(host: string): boolean {
  const name = host.toLowerCase().replace(/\.$/, '');
  if (name === 'localhost' || !name.includes('.')) return true;
  return INTERNAL_SUFFIXES.some((s) => name.endsWith(s));
}

/**
 * Why `url` may not be fetched for a JWKS, or undefined when it may. Without `allowPrivate` only https to
 * a public name or address; with it, also http and internal hosts (a test or on-premises deployment).
 */
export function refuseJwksUrl(url: URL, allowPrivate: boolean): string | undefined {
  if (url.protocol !== 'https:' && !(allowPrivate && url.protocol === 'http:')) return `scheme ${url.protocol} not allowed`;
  if (url.username || url.password) return 'credentials in the URL';
  if (allowPrivate) return undefined;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIpLiteral(host)) return isPrivateAddress(host) ? 'private address' : undefined;
  return isInternalName(host) ? 'internal host name' : undefined;
}
