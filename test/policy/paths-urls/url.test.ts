/**
 * `url` conditions (`src/policy/paths-urls/url.ts`): normalisation, private addresses range by range, and the
 * three-valued answer (a URL that cannot be known holds for deny and never for allow).
 */
import { describe, expect, it } from 'vitest';
import { compileUrl, isPrivateHost, normalizeHost } from '../../../src/policy/paths-urls/url.js';
import { MAYBE, NO, YES } from '../../../src/policy/truth.js';
import { gate, verdictOf } from '../../helpers/conditions.js';

describe('url conditions (compileUrl)', () => {
  const hosts = compileUrl({
    hosts: ['api.example.com', '*.example.org', 'bücher.example', '10.0.0.1', '[::1]'],
    schemes: ['https'],
  });
  const priv = compileUrl({ private: true });
  if ('invalid' in hosts || 'invalid' in priv) throw new Error('the conditions compile');
  // [url, hosts+https, private]
  const cases: [string, number, number][] = [
    ['https://api.example.com/v1', YES, NO],
    ['https://api.example.com./v1', YES, NO],
    ['https://API.EXAMPLE.COM/v1', YES, NO],
    ['https://api.example.com:8443/v1', YES, NO],
    ['http://api.example.com/v1', NO, NO],
    ['https://ok.example@evil.example/', NO, NO],
    ['https://api.example.com@evil.example/', NO, NO],
    ['https://evil.example/?api.example.com', NO, NO],
    ['https://evil.example/#api.example.com', NO, NO],
    ['https://api.example.com.evil.example/', NO, NO],
    ['https://evilapi.example.com/', NO, NO],
    ['https://a.example.org/', YES, NO],
    ['https://a.b.example.org/', YES, NO],
    ['https://example.org/', NO, NO],
    ['https://badexample.org/', NO, NO],
    ['https://xn--bcher-kva.example/', YES, NO],
    ['https://bücher.example/', YES, NO],
    ['https://BÜCHER.example/', YES, NO],
    ['https://10.0.0.1/', YES, YES],
    ['https://0x0a.0.0.1/', YES, YES],
    ['https://167772161/', YES, YES],
    ['https://012.0.0.1/', YES, YES],
    ['https://[::1]/', YES, YES],
    ['https://[0:0:0:0:0:0:0:1]/', YES, YES],
    ['http://127.0.0.1/', NO, YES],
    ['http://127.1/', NO, YES],
    ['http://2130706433/', NO, YES],
    ['http://0x7f000001/', NO, YES],
    ['http://0177.0.0.1/', NO, YES],
    ['http://0.0.0.0/', NO, YES],
    ['http://0/', NO, YES],
    ['http://localhost/', NO, YES],
    ['http://LOCALHOST./', NO, YES],
    ['http://a.localhost/', NO, YES],
    ['http://localhost.example.com/', NO, NO],
    ['http://169.254.169.254/latest/meta-data', NO, YES],
    ['http://100.64.0.1/', NO, YES],
    ['http://172.16.0.1/', NO, YES],
    ['http://172.31.255.255/', NO, YES],
    ['http://172.32.0.1/', NO, NO],
    ['http://192.168.1.1/', NO, YES],
    ['http://8.8.8.8/', NO, NO],
    ['http://[::]/', NO, YES],
    ['http://[fc00::1]/', NO, YES],
    ['http://[fd12:3456::1]/', NO, YES],
    ['http://[fe80::1]/', NO, YES],
    ['http://[::ffff:127.0.0.1]/', NO, YES],
    ['http://[::ffff:7f00:1]/', NO, YES],
    ['http://[::ffff:8.8.8.8]/', NO, NO],
    ['http://[64:ff9b::10.0.0.1]/', NO, YES],
    ['http://[64:ff9b::8.8.8.8]/', NO, NO],
    ['http://[2002:c0a8:0101::1]/', NO, YES],
    ['http://[2002:0808:0808::1]/', NO, NO],
    ['http://[::127.0.0.1]/', NO, YES],
    ['http://[2606:4700::1111]/', NO, NO],
    ['not a url', MAYBE, MAYBE],
    ['https://', MAYBE, MAYBE],
    ['//api.example.com/', MAYBE, MAYBE],
    ['file:///etc/passwd', NO, MAYBE],
  ];

  describe('when a URL is judged against hosts and private addresses', () => {
    it('has at least 50 cases', () => expect(cases.length).toBeGreaterThanOrEqual(50));

    it.each(cases)('%j: hosts %d, private %d', (url, h, p) => {
      expect(hosts.test(url)).toBe(h);
      expect(priv.test(url)).toBe(p);
    });
  });

  describe('when a host is normalised, or a host pattern compiled', () => {
    it('normalises hosts and knows private ones', () => {
      expect(normalizeHost('Example.COM.')).toBe('example.com');
      expect(isPrivateHost('127.0.0.1')).toBe(true);
      expect(isPrivateHost('93.184.216.34')).toBe(false);
    });

    it('refuses a host pattern that is not a host', () => {
      expect(compileUrl({ hosts: ['a b'] })).toEqual({ invalid: 'a b' });
    });
  });

  describe('when used in a policy', () => {
    it('in a policy: an unparseable URL denies and never allows', () => {
      const deny = gate('deny', { arg: 'url', url: { private: true } });
      const allow = gate('allow', { arg: 'url', url: { hosts: ['api.example.com'] } });
      expect(verdictOf(deny, { url: 'http://[::1' })).toBe('deny');
      expect(verdictOf(allow, { url: 'http://[::1' })).toBe('deny');
      expect(verdictOf(deny, { url: 'http://0x7f.1/' })).toBe('deny');
      expect(verdictOf(allow, { url: 'https://ok.example@api.example.com/' })).toBe('allow');
      expect(verdictOf(allow, { url: 'https://api.example.com@evil.example/' })).toBe('deny');
    });
  });
});

/**
 * `private: true` on every special-purpose range, at its edges: the first and last address inside and the
 * neighbours just outside (public), in IPv4 and in the IPv6 forms that embed an IPv4 address. A range whose test
 * was off by one bit, or a form not recognised, lets a request to an internal address through a `private: false`
 * allow rule (or past a `private: true` deny).
 */
describe('url conditions (compileUrl) on private addresses, range by range', () => {
  const privateUrl = compileUrl({ private: true });
  if ('invalid' in privateUrl) throw new Error('the private-only condition compiles');
  const v4: [string, string, string[]][] = [
    // [first, last, public neighbours]
    ['0.0.0.0', '0.255.255.255', ['1.0.0.0']],
    ['10.0.0.0', '10.255.255.255', ['9.255.255.255', '11.0.0.0']],
    ['100.64.0.0', '100.127.255.255', ['100.63.255.255', '100.128.0.0']],
    ['127.0.0.0', '127.255.255.255', ['126.255.255.255', '128.0.0.0']],
    ['169.254.0.0', '169.254.255.255', ['169.253.255.255', '169.255.0.0']],
    ['172.16.0.0', '172.31.255.255', ['172.15.255.255', '172.32.0.0']],
    ['192.0.0.0', '192.0.0.255', ['191.255.255.255', '192.0.1.0']],
    ['192.0.2.0', '192.0.2.255', ['192.0.3.0']],
    ['192.88.99.0', '192.88.99.255', ['192.88.98.255', '192.88.100.0']],
    ['192.168.0.0', '192.168.255.255', ['192.167.255.255', '192.169.0.0']],
    ['198.18.0.0', '198.19.255.255', ['198.17.255.255', '198.20.0.0']],
    ['198.51.100.0', '198.51.100.255', ['198.51.99.255', '198.51.101.0']],
    ['203.0.113.0', '203.0.113.255', ['203.0.112.255', '203.0.114.0']],
    ['224.0.0.0', '239.255.255.255', ['223.255.255.255']],
    ['240.0.0.0', '255.255.255.255', []],
  ];
  describe('when an IPv4 address sits at the edge of a range', () => {
    for (const [first, last, outside] of v4) {
      it(`${first} – ${last}`, () => {
        expect(privateUrl.test(`http://${first}/`)).toBe(YES);
        expect(privateUrl.test(`http://${last}/`)).toBe(YES);
        for (const address of outside) expect(privateUrl.test(`http://${address}/`), address).toBe(NO);
      });
    }
  });

  const v6: [string, boolean][] = [
    ['::', true],
    ['::1', true],
    ['::2', true], // IPv4-compatible 0.0.0.2
    ['::127.0.0.1', true],
    ['::8.8.8.8', false],
    ['::ffff:10.0.0.1', true], // IPv4-mapped
    ['::ffff:7f00:1', true],
    ['::ffff:8.8.8.8', false],
    ['::ffff:0:10.0.0.1', true], // IPv4-translated
    ['::ffff:0:8.8.8.8', false],
    ['64:ff9b::10.0.0.1', true], // NAT64
    ['64:ff9b::8.8.8.8', false],
    ['64:ff9b:1::1', true], // local-use NAT64
    ['64:ff9b:2::1', false],
    ['2002:a00:1::', true], // 6to4 of 10.0.0.1
    ['2002:808:808::', false],
    ['fc00::1', true], // unique local
    ['fdff::1', true],
    ['fbff::1', false],
    ['fe00::1', false],
    ['fe80::1', true], // link-local
    ['febf::1', true],
    ['fe7f::1', false],
    ['fec0::1', true], // site-local
    ['feff::1', true],
    ['ff00::1', true], // multicast
    ['ff02::1', true],
    ['100::1', true], // discard
    ['100:0:0:1::1', false],
    ['2001:db8::1', true], // documentation
    ['2001:db9::1', false],
    ['2001::1', true], // IETF protocol assignments
    ['2001:1ff::1', true],
    ['2001:200::1', false],
    ['2606:4700::1111', false],
  ];
  describe('when the address is IPv6, plain or embedding an IPv4 address', () => {
    for (const [address, isPrivate] of v6) {
      it(`[${address}] is ${isPrivate ? 'private' : 'public'}`, () => {
        expect(privateUrl.test(`http://[${address}]/`)).toBe(isPrivate ? YES : NO);
        expect(isPrivateHost(normalizeHost(address) ?? '')).toBe(isPrivate);
      });
    }
  });

  describe('when the host is a name', () => {
    it('names: localhost and its subdomains, with or without a trailing dot; not a name that only starts so', () => {
      for (const url of ['http://localhost/', 'http://LOCALHOST./', 'http://api.localhost/', 'http://0x7f000001/']) {
        expect(privateUrl.test(url), url).toBe(YES);
      }
      for (const url of ['http://localhost.com/', 'http://mylocalhost/', 'http://example.com/']) {
        expect(privateUrl.test(url), url).toBe(NO);
      }
    });
  });
});
