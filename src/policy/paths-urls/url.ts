/**
 * URL conditions: `url: { hosts, schemes, private }` on a string argument, parsed with the WHATWG URL
 * parser (Node's `URL`): userinfo never counts as the host, one trailing dot is stripped on both sides,
 * IDN hosts are compared in punycode, IP literals in every spelling are normalised. `private` holds for the
 * IANA special-purpose ranges (and their NAT64, 6to4, IPv4-mapped and -compatible forms) and for
 * `localhost` and `*.localhost`. DNS names are not resolved: a name that resolves to a private address is
 * not `private`. An unparseable URL is unknown.
 */
import { and, MAYBE, NO, type Truth, YES } from '../truth.js';

/** A URL condition as written in a policy. */
export interface UrlSpec {
  /** Host names (`api.example.com`), `*.example.org` for any subdomain, or IP literals. */
  readonly hosts?: readonly string[];
  /** Schemes without `:` (`https`). */
  readonly schemes?: readonly string[];
  /** `true`: the host is private (special-purpose or localhost); `false`: it is not. */
  readonly private?: boolean;
}

/** The host of a WHATWG-parsed host string, normalised: lower case, punycode, no trailing dot, IPs canonical. */
export function normalizeHost(host: string): string | undefined {
  let h = host.endsWith('.') ? host.slice(0, -1) : host;
  if (h === '') return undefined;
  if (h.startsWith('[') && h.endsWith(']')) h = h.slice(1, -1);
  try {
    const parsed = new URL(`http://${h.includes(':') ? `[${h}]` : h}/`).hostname;
    const bare = parsed.startsWith('[') ? parsed.slice(1, -1) : parsed;
    return bare.endsWith('.') ? bare.slice(0, -1) : bare;
  } catch {
    return undefined;
  }
}

function parseIpv4(host: string): number[] | undefined {
  const m = /^(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(host);
  if (m === null) return undefined;
  const bytes = m.slice(1).map(Number);
  return bytes.every((b) => b <= 255) ? bytes : undefined;
}

function parseIpv6(host: string): number[] | undefined {
  if (!host.includes(':')) return undefined;
  let text = host;
  const tail: number[] = [];
  const v4 = /:(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4 !== null) {
    const bytes = parseIpv4(v4[1] ?? '');
    if (bytes === undefined) return undefined;
    tail.push(((bytes[0] ?? 0) << 8) | (bytes[1] ?? 0), ((bytes[2] ?? 0) << 8) | (bytes[3] ?? 0));
    text = `${text.slice(0, v4.index)}:`;
    if (text.endsWith('::')) text = `${text}`;
    else text = text.slice(0, -1);
  }
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const read = (s: string): number[] => (s === '' ? [] : s.split(':').map((g) => Number.parseInt(g, 16)));
  const head = read(halves[0] ?? '');
  const rest = halves.length === 2 ? read(halves[1] ?? '') : [];
  const total = head.length + rest.length + tail.length;
  if (halves.length === 1 && total !== 8) return undefined;
  if (total > 8 || [...head, ...rest].some((g) => Number.isNaN(g) || g < 0 || g > 0xffff)) return undefined;
  return [...head, ...Array.from({ length: 8 - total }, () => 0), ...rest, ...tail];
}

function inV4(bytes: readonly number[], prefix: readonly number[], bits: number): boolean {
  for (let i = 0; i < 4; i += 1) {
    const take = Math.max(0, Math.min(8, bits - i * 8));
    if (take === 0) return true;
    const mask = (0xff << (8 - take)) & 0xff;
    if (((bytes[i] ?? 0) & mask) !== ((prefix[i] ?? 0) & mask)) return false;
  }
  return true;
}

const V4_PRIVATE: readonly (readonly [readonly number[], number])[] = [
  [[0, 0, 0, 0], 8],
  [[10, 0, 0, 0], 8],
  [[100, 64, 0, 0], 10],
  [[127, 0, 0, 0], 8],
  [[169, 254, 0, 0], 16],
  [[172, 16, 0, 0], 12],
  [[192, 0, 0, 0], 24],
  [[192, 0, 2, 0], 24],
  [[192, 88, 99, 0], 24],
  [[192, 168, 0, 0], 16],
  [[198, 18, 0, 0], 15],
  [[198, 51, 100, 0], 24],
  [[203, 0, 113, 0], 24],
  [[224, 0, 0, 0], 4],
  [[240, 0, 0, 0], 4],
];

function privateV4(bytes: readonly number[]): boolean {
  return V4_PRIVATE.some(([prefix, bits]) => inV4(bytes, prefix, bits));
}

function embeddedV4(high: number, low: number): number[] {
  return [high >> 8, high & 0xff, low >> 8, low & 0xff];
}

function privateV6(g: readonly number[]): boolean {
  const [a = 0, b = 0, c = 0, d = 0, e = 0, f = 0, h6 = 0, h7 = 0] = g;
  if (g.every((x) => x === 0)) return true; // ::
  if (a === 0 && b === 0 && c === 0 && d === 0 && e === 0 && f === 0) {
    return h6 === 0 && h7 === 1 ? true : privateV4(embeddedV4(h6, h7)); // ::1, IPv4-compatible
  }
  if (a === 0 && b === 0 && c === 0 && d === 0 && e === 0 && f === 0xffff) return privateV4(embeddedV4(h6, h7)); // mapped
  if (a === 0 && b === 0 && c === 0 && d === 0 && e === 0xffff && f === 0) return privateV4(embeddedV4(h6, h7)); // translated
  if (a === 0x64 && b === 0xff9b && c === 0 && d === 0 && e === 0 && f === 0) return privateV4(embeddedV4(h6, h7)); // NAT64
  if (a === 0x64 && b === 0xff9b && c === 1) return true; // local-use NAT64
  if (a === 0x2002) return privateV4(embeddedV4(b, c)); // 6to4
  if ((a & 0xfe00) === 0xfc00) return true; // unique local
  if ((a & 0xffc0) === 0xfe80 || (a & 0xffc0) === 0xfec0) return true; // link-local, site-local
  if ((a & 0xff00) === 0xff00) return true; // multicast
  if (a === 0x100 && b === 0 && c === 0 && d === 0) return true; // discard
  if (a === 0x2001 && b === 0xdb8) return true; // documentation
  if (a === 0x2001 && b < 0x200) return true; // IETF protocol assignments (Teredo, ORCHID, …)
  return false;
}

/**
 * Whether a normalised host is private: an IANA special-purpose address, `localhost` or `*.localhost`.
 *
 * @param host - a host from `normalizeHost`
 */
export function isPrivateHost(host: string): boolean {
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  const v4 = parseIpv4(host);
  if (v4 !== undefined) return privateV4(v4);
  const v6 = parseIpv6(host);
  return v6 !== undefined && privateV6(v6);
}

/** A compiled URL condition. */
export interface UrlTest {
  /** The truth of the condition for a URL string. */
  test(url: string): Truth;
}

/**
 * Compiles a URL condition.
 *
 * @param spec - the condition as written
 * @returns the test, or the host patterns that are not host names
 */
export function compileUrl(spec: UrlSpec): UrlTest | { invalid: string } {
  const exact = new Set<string>();
  const suffixes: string[] = [];
  for (const pattern of spec.hosts ?? []) {
    const wildcard = pattern.startsWith('*.');
    const host = normalizeHost(wildcard ? pattern.slice(2) : pattern);
    if (host === undefined || host.includes('*')) return { invalid: pattern };
    if (wildcard) suffixes.push(`.${host}`);
    else exact.add(host);
  }
  const schemes =
    spec.schemes === undefined ? undefined : new Set(spec.schemes.map((s) => s.toLowerCase().replace(/:$/, '')));
  return {
    test(url) {
      let parsed: URL;
      try {
        parsed = new URL(url);
      } catch {
        return MAYBE;
      }
      let result: Truth = YES;
      if (schemes !== undefined) result = and(result, schemes.has(parsed.protocol.slice(0, -1)) ? YES : NO);
      if (spec.hosts !== undefined || spec.private !== undefined) {
        const host = parsed.hostname === '' ? undefined : normalizeHost(parsed.hostname);
        if (host === undefined) return and(result, parsed.hostname === '' && spec.hosts !== undefined ? NO : MAYBE);
        if (spec.hosts !== undefined) {
          result = and(result, exact.has(host) || suffixes.some((s) => host.endsWith(s)) ? YES : NO);
        }
        if (spec.private !== undefined) result = and(result, isPrivateHost(host) === spec.private ? YES : NO);
      }
      return result;
    },
  };
}
