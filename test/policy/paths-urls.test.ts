/**
 * `path` and `url` conditions: normalisation and the three-valued answer (a path or URL that cannot be known
 * holds for deny and never for allow), each case written with the answer a careful reader expects.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type Decision, type PolicyInput, policyGate, type ToolCallRequest } from '../../src/index.js';
import { caseInsensitiveAt, compilePath, normalizePath } from '../../src/policy/paths-urls/file-path.js';
import { compileUrl, isPrivateHost, normalizeHost } from '../../src/policy/paths-urls/url.js';
import { MAYBE, NO, YES } from '../../src/policy/truth.js';

function request(input: unknown): ToolCallRequest {
  return {
    toolUseId: 't',
    toolName: 't',
    input,
    agentId: 'a',
    agentName: 'a',
    path: ['a'],
    paths: [['a']],
    toolKind: 'function',
  };
}

/** A policy that denies (or allows) tool `t` when the condition holds, default the other way. */
function gate(verdict: 'deny' | 'allow', condition: Record<string, unknown>) {
  const policy: PolicyInput = {
    version: 1,
    default: verdict === 'deny' ? 'allow' : 'deny',
    rules: [{ id: 'r', tools: ['t'], when: [condition as never], verdict }],
  };
  return policyGate(policy);
}

const verdictOf = (g: ReturnType<typeof gate>, input: unknown): string =>
  (g.decide(request(input)) as Decision).verdict;

describe('path conditions', () => {
  const under = compilePath({ under: ['/workspace'], caseInsensitive: false });
  const withCwd = compilePath({ under: ['/workspace'], cwd: '/workspace/app', caseInsensitive: false });
  const notUnder = compilePath({ notUnder: ['/workspace/.git', '/etc'], caseInsensitive: false });
  // [path, under /workspace, under /workspace with cwd /workspace/app, notUnder /workspace/.git and /etc]
  const cases: [string, number, number, number][] = [
    ['/workspace', YES, YES, YES],
    ['/workspace/', YES, YES, YES],
    ['/workspace/a.txt', YES, YES, YES],
    ['/workspace//a.txt', YES, YES, YES],
    ['/workspace/./a.txt', YES, YES, YES],
    ['/workspace/src/../a.txt', YES, YES, YES],
    ['/workspace/../etc/passwd', NO, NO, NO],
    ['/workspace/../../../../etc/passwd', NO, NO, NO],
    ['/workspace/..', NO, NO, YES],
    ['/workspace2', NO, NO, YES],
    ['/workspace2/a', NO, NO, YES],
    ['/work', NO, NO, YES],
    ['/workspacex/../workspace/a', YES, YES, YES],
    ['//workspace/a', YES, YES, YES],
    ['/./workspace/a', YES, YES, YES],
    ['/../workspace/a', YES, YES, YES],
    ['/', NO, NO, YES],
    ['/etc', NO, NO, NO],
    ['/etc/', NO, NO, NO],
    ['/etc/passwd', NO, NO, NO],
    ['/etcetera', NO, NO, YES],
    ['/workspace/.git', YES, YES, NO],
    ['/workspace/.git/config', YES, YES, NO],
    ['/workspace/.github/x', YES, YES, YES],
    ['/workspace/.git/../src', YES, YES, YES],
    ['a.txt', MAYBE, YES, MAYBE],
    ['./a.txt', MAYBE, YES, MAYBE],
    ['../a.txt', MAYBE, YES, MAYBE],
    ['../../etc/passwd', MAYBE, NO, MAYBE],
    ['../../../etc', MAYBE, NO, MAYBE],
    ['src/../../x', MAYBE, YES, MAYBE],
    ['~', MAYBE, MAYBE, MAYBE],
    ['~/x', MAYBE, MAYBE, MAYBE],
    ['~root/x', MAYBE, MAYBE, MAYBE],
    ['', MAYBE, MAYBE, MAYBE],
    ['/workspace/a b', YES, YES, YES],
    ['/workspace/\n', YES, YES, YES],
    ['/workspace/ü', YES, YES, YES],
    ['/Workspace/a', NO, NO, YES],
    ['/WORKSPACE', NO, NO, YES],
    ['/workspace/a/../../workspace/b', YES, YES, YES],
    ['/workspace/a/../../etc', NO, NO, NO],
    ['/etc/../workspace', YES, YES, YES],
    ['/tmp/../etc/../workspace/./x', YES, YES, YES],
    ['/proc/self/root/etc/passwd', NO, NO, YES],
    ['/workspace/.git.bak', YES, YES, YES],
    ['/workspace/x/.git', YES, YES, YES],
    ['.', MAYBE, YES, MAYBE],
    ['..', MAYBE, YES, MAYBE],
    ['.git/config', MAYBE, YES, MAYBE],
  ];

  it('has at least 50 cases', () => expect(cases.length).toBeGreaterThanOrEqual(50));

  it.each(cases)('%j: under %d, with cwd %d, notUnder %d', (path, u, c, n) => {
    expect(under.test(path)).toBe(u);
    expect(withCwd.test(path)).toBe(c);
    expect(notUnder.test(path)).toBe(n);
  });

  it('treats a relative path as unknown when the line changed directory, even with cwd', () => {
    expect(withCwd.test('a.txt', true)).toBe(MAYBE);
    expect(withCwd.test('/workspace/a.txt', true)).toBe(YES);
  });

  it('normalises', () => {
    expect(normalizePath('/a/b/../../../c/./d//')).toBe('/c/d');
    expect(normalizePath('x', '/w')).toBe('/w/x');
    expect(normalizePath('x')).toBeUndefined();
  });

  describe('realpath: true', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gate-audit-realpath-'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));
    mkdirSync(join(dir, 'workspace'));
    mkdirSync(join(dir, 'outside'));
    symlinkSync(join(dir, 'outside'), join(dir, 'workspace', 'escape'));
    symlinkSync(join(dir, 'nowhere'), join(dir, 'workspace', 'dangling'));

    it('judges a symlink where it points, and a dangling one as unknown', () => {
      const real = compilePath({ under: [join(dir, 'workspace')], realpath: true, caseInsensitive: false });
      const lexical = compilePath({ under: [join(dir, 'workspace')], caseInsensitive: false });
      expect(lexical.test(join(dir, 'workspace/escape/x'))).toBe(YES);
      expect(real.test(join(dir, 'workspace/escape/x'))).toBe(NO);
      expect(real.test(join(dir, 'workspace/new/file'))).toBe(YES);
      expect(real.test(join(dir, 'workspace/dangling'))).toBe(MAYBE);
    });
  });

  // Needs a case-sensitive temporary directory (it builds both spellings of names there).
  describe.skipIf(caseInsensitiveAt(tmpdir()))('case: detected from the volume unless told', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gate-audit-case-'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));
    // This volume is case-sensitive; `dataX` standing in for its case-toggled twin `datax` makes `datax` look like
    // a directory of a case-insensitive volume (the same file under both spellings).
    mkdirSync(join(dir, 'datax'));
    symlinkSync(join(dir, 'datax'), join(dir, 'dataX'));
    mkdirSync(join(dir, 'plain'));
    mkdirSync(join(dir, 'twin'));
    mkdirSync(join(dir, 'twiN'));

    it('a directory whose case-toggled name is the same file is compared folded', () => {
      expect(caseInsensitiveAt(join(dir, 'datax'))).toBe(true);
      expect(caseInsensitiveAt(join(dir, 'datax', 'not', 'yet'))).toBe(true);
      const detected = compilePath({ under: [join(dir, 'datax')] });
      expect(detected.test(join(dir, 'DATAX', 'secret'))).toBe(YES);
    });

    it('one where it is not, or whose name has no letter to toggle, is compared exactly', () => {
      expect(caseInsensitiveAt(join(dir, 'plain'))).toBe(false);
      // Both spellings exist, as two different directories.
      expect(caseInsensitiveAt(join(dir, 'twin'))).toBe(false);
      expect(caseInsensitiveAt('/')).toBe(false);
      const exact = compilePath({ under: [join(dir, 'plain')] });
      expect(exact.test(join(dir, 'PLAIN', 'secret'))).toBe(NO);
      expect(exact.test(join(dir, 'plain', 'secret'))).toBe(YES);
    });
  });

  it('under "/" holds for every absolute path; several bases: any of them', () => {
    const root = compilePath({ under: ['/'], caseInsensitive: false });
    expect(root.test('/etc/passwd')).toBe(YES);
    expect(root.test('/')).toBe(YES);
    const two = compilePath({ under: ['/a', '/b'], caseInsensitive: false });
    expect(two.test('/b/x')).toBe(YES);
    expect(two.test('/a')).toBe(YES);
    expect(two.test('/ab')).toBe(NO);
    const notTwo = compilePath({ notUnder: ['/a', '/b'], caseInsensitive: false });
    expect(notTwo.test('/b/x')).toBe(NO);
    expect(notTwo.test('/c')).toBe(YES);
  });

  it('compares folded on a case-insensitive volume when told to', () => {
    const folded = compilePath({ under: ['/workspace'], caseInsensitive: true });
    expect(folded.test('/WorkSpace/a')).toBe(YES);
  });

  it('in a policy: unknown denies and never allows', () => {
    const deny = gate('deny', { arg: 'path', path: { under: ['/etc'] } });
    const allow = gate('allow', { arg: 'path', path: { under: ['/workspace'] } });
    expect(verdictOf(deny, { path: 'x' })).toBe('deny');
    expect(verdictOf(allow, { path: 'x' })).toBe('deny');
    expect(verdictOf(deny, { path: '/workspace/../etc/shadow' })).toBe('deny');
    expect(verdictOf(allow, { path: '/workspace/../etc/shadow' })).toBe('deny');
    expect(verdictOf(allow, { path: '/workspace/a' })).toBe('allow');
  });
});

describe('url conditions', () => {
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

  it('has at least 50 cases', () => expect(cases.length).toBeGreaterThanOrEqual(50));

  it.each(cases)('%j: hosts %d, private %d', (url, h, p) => {
    expect(hosts.test(url)).toBe(h);
    expect(priv.test(url)).toBe(p);
  });

  it('normalises hosts and knows private ones', () => {
    expect(normalizeHost('Example.COM.')).toBe('example.com');
    expect(isPrivateHost('127.0.0.1')).toBe(true);
    expect(isPrivateHost('93.184.216.34')).toBe(false);
  });

  it('refuses a host pattern that is not a host', () => {
    expect(compileUrl({ hosts: ['a b'] })).toEqual({ invalid: 'a b' });
  });

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

/**
 * `private: true` on every special-purpose range, at its edges: the first and last address inside and the
 * neighbours just outside (public), in IPv4 and in the IPv6 forms that embed an IPv4 address. A range whose test
 * was off by one bit, or a form not recognised, lets a request to an internal address through a `private: false`
 * allow rule (or past a `private: true` deny).
 */
describe('url conditions: private addresses, range by range', () => {
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
  for (const [first, last, outside] of v4) {
    it(`${first} – ${last}`, () => {
      expect(privateUrl.test(`http://${first}/`)).toBe(YES);
      expect(privateUrl.test(`http://${last}/`)).toBe(YES);
      for (const address of outside) expect(privateUrl.test(`http://${address}/`), address).toBe(NO);
    });
  }

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
  for (const [address, isPrivate] of v6) {
    it(`[${address}] is ${isPrivate ? 'private' : 'public'}`, () => {
      expect(privateUrl.test(`http://[${address}]/`)).toBe(isPrivate ? YES : NO);
      expect(isPrivateHost(normalizeHost(address) ?? '')).toBe(isPrivate);
    });
  }

  it('names: localhost and its subdomains, with or without a trailing dot; not a name that only starts so', () => {
    for (const url of ['http://localhost/', 'http://LOCALHOST./', 'http://api.localhost/', 'http://0x7f000001/']) {
      expect(privateUrl.test(url), url).toBe(YES);
    }
    for (const url of ['http://localhost.com/', 'http://mylocalhost/', 'http://example.com/']) {
      expect(privateUrl.test(url), url).toBe(NO);
    }
  });
});
