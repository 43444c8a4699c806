import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Decision,
  loadPolicy,
  PolicyError,
  type PolicyInput,
  PolicySchema,
  policyGate,
  type ToolCallRequest,
} from '../../src/index.js';
import { parsePolicy } from '../../src/policy/load.js';

const scratch = join(dirname(fileURLToPath(import.meta.url)), '../.generated/policy-rules');
beforeAll(() => mkdirSync(scratch, { recursive: true }));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function request(toolName: string, input: unknown = {}, path: string[] = ['app', 'agent']): ToolCallRequest {
  return {
    toolUseId: 't1',
    toolName,
    input,
    agentId: 'agent',
    agentName: 'agent',
    path,
    paths: [path],
    toolKind: 'function',
  };
}

function decide(policy: PolicyInput, toolName: string, input: unknown = {}, path?: string[]): Decision {
  return policyGate(policy).decide(request(toolName, input, path)) as Decision;
}

/** A policy with one conditional allow rule on tool `t`, default deny. */
function when(condition: Record<string, unknown>): PolicyInput {
  return { version: 1, rules: [{ id: 'cond', tools: ['t'], when: [condition as never], verdict: 'allow' }] };
}

function policyFile(name: string, text: string): string {
  const path = join(scratch, name);
  writeFileSync(path, text);
  return path;
}

describe('policyGate', () => {
  describe('when no rule covers a tool (the default)', () => {
    it('denies a tool no rule covers when the policy omits default, and says so', () => {
      expect(decide({ version: 1, rules: [] }, 'rm')).toEqual({
        verdict: 'deny',
        reason: 'no rule of the policy covers tool "rm" (policy default: deny)',
        rule: 'default',
      });
    });

    it('applies an explicit default of allow or ask', () => {
      expect(decide({ version: 1, default: 'allow' }, 'rm')).toEqual({ verdict: 'allow', rule: 'default' });
      expect(decide({ version: 1, default: 'ask' }, 'rm')).toMatchObject({ verdict: 'ask', rule: 'default' });
    });
  });

  describe('when rules name tools by glob', () => {
    const policy: PolicyInput = {
      version: 1,
      rules: [
        { id: 'reads', tools: ['read_*', 'ls'], verdict: 'allow' },
        { id: 'one-char', tools: ['cat?'], verdict: 'allow' },
      ],
    };

    it('match names with * and ? and exact names, case-sensitively', () => {
      expect(decide(policy, 'read_file')).toEqual({ verdict: 'allow', rule: 'reads' });
      expect(decide(policy, 'ls')).toEqual({ verdict: 'allow', rule: 'reads' });
      expect(decide(policy, 'cat1')).toEqual({ verdict: 'allow', rule: 'one-char' });
      expect(decide(policy, 'cat12').verdict).toBe('deny');
      expect(decide(policy, 'LS').verdict).toBe('deny');
      expect(decide(policy, 'xread_file').verdict).toBe('deny');
    });

    it('treat regex characters in a glob literally', () => {
      const dotted: PolicyInput = { version: 1, rules: [{ id: 'dot', tools: ['a.b'], verdict: 'allow' }] };
      expect(decide(dotted, 'a.b').verdict).toBe('allow');
      expect(decide(dotted, 'axb').verdict).toBe('deny');
    });
  });

  describe('when rules match path globs over the request path joined with "/"', () => {
    const policy: PolicyInput = {
      version: 1,
      rules: [
        { id: 'pipeline', tools: ['shell'], paths: ['pipeline/**'], verdict: 'allow' },
        { id: 'any-writer', tools: ['write'], paths: ['**/writer'], verdict: 'allow' },
        { id: 'team-member', tools: ['handoff'], paths: ['app/team/*'], verdict: 'allow' },
        { id: 'middle', tools: ['mid'], paths: ['app/**/leaf'], verdict: 'allow' },
      ],
    };

    it('** is zero or more whole segments, * stays within one segment', () => {
      expect(decide(policy, 'shell', {}, ['pipeline']).verdict).toBe('allow');
      expect(decide(policy, 'shell', {}, ['pipeline', 'a', 'b']).verdict).toBe('allow');
      expect(decide(policy, 'shell', {}, ['pipelines', 'a']).verdict).toBe('deny');
      expect(decide(policy, 'write', {}, ['writer']).verdict).toBe('allow');
      expect(decide(policy, 'write', {}, ['app', 'x', 'writer']).verdict).toBe('allow');
      expect(decide(policy, 'write', {}, ['app', 'rewriter']).verdict).toBe('deny');
      expect(decide(policy, 'handoff', {}, ['app', 'team', 's1']).verdict).toBe('allow');
      expect(decide(policy, 'handoff', {}, ['app', 'team', 's1', 'inner']).verdict).toBe('deny');
      expect(decide(policy, 'mid', {}, ['app', 'leaf']).verdict).toBe('allow');
      expect(decide(policy, 'mid', {}, ['app', 'a', 'b', 'leaf']).verdict).toBe('allow');
      expect(decide(policy, 'mid', {}, ['other', 'leaf']).verdict).toBe('deny');
    });
  });

  describe('when a rule has conditions (every one must hold)', () => {
    it('matches: a linear-time regular expression searched in a string', () => {
      const policy = when({ arg: 'command', matches: 'rm\\s+-rf' });
      expect(decide(policy, 't', { command: 'sudo rm  -rf /' }).verdict).toBe('allow');
      expect(decide(policy, 't', { command: 'ls' }).verdict).toBe('deny');
      expect(decide(policy, 't', { command: 42 }).verdict).toBe('deny');
    });

    it('equals: strict equality with a scalar', () => {
      expect(decide(when({ arg: 'mode', equals: 'read' }), 't', { mode: 'read' }).verdict).toBe('allow');
      expect(decide(when({ arg: 'n', equals: 1 }), 't', { n: '1' }).verdict).toBe('deny');
      expect(decide(when({ arg: 'flag', equals: null }), 't', { flag: null }).verdict).toBe('allow');
      expect(decide(when({ arg: 'flag', equals: false }), 't', {}).verdict).toBe('deny');
    });

    it('in: one of a list of scalars', () => {
      const policy = when({ arg: 'env', in: ['dev', 'test'] });
      expect(decide(policy, 't', { env: 'test' }).verdict).toBe('allow');
      expect(decide(policy, 't', { env: 'prod' }).verdict).toBe('deny');
    });

    it('contains: a substring of a string, or an element of an array', () => {
      const policy = when({ arg: 'query', contains: 'public' });
      expect(decide(policy, 't', { query: 'the public docs' }).verdict).toBe('allow');
      expect(decide(policy, 't', { query: ['private', 'public'] }).verdict).toBe('allow');
      expect(decide(policy, 't', { query: 'private' }).verdict).toBe('deny');
      expect(decide(when({ arg: 'ids', contains: 7 }), 't', { ids: [1, 7] }).verdict).toBe('allow');
    });

    it('startsWith: a string prefix', () => {
      const policy = when({ arg: 'path', startsWith: '/tmp/' });
      expect(decide(policy, 't', { path: '/tmp/x' }).verdict).toBe('allow');
      expect(decide(policy, 't', { path: '/etc/tmp/x' }).verdict).toBe('deny');
    });

    it('lt, lte, gt, gte: finite numbers only', () => {
      expect(decide(when({ arg: 'amount', lt: 100 }), 't', { amount: 99 }).verdict).toBe('allow');
      expect(decide(when({ arg: 'amount', lt: 100 }), 't', { amount: 100 }).verdict).toBe('deny');
      expect(decide(when({ arg: 'amount', lte: 100 }), 't', { amount: 100 }).verdict).toBe('allow');
      expect(decide(when({ arg: 'amount', gt: 100 }), 't', { amount: 100 }).verdict).toBe('deny');
      expect(decide(when({ arg: 'amount', gt: 100 }), 't', { amount: 101 }).verdict).toBe('allow');
      expect(decide(when({ arg: 'amount', gte: 100 }), 't', { amount: 100 }).verdict).toBe('allow');
      expect(decide(when({ arg: 'amount', gte: 100 }), 't', { amount: '500' }).verdict).toBe('deny');
      // Just past each bound.
      expect(decide(when({ arg: 'amount', lte: 100 }), 't', { amount: 100.5 }).verdict).toBe('deny');
      expect(decide(when({ arg: 'amount', gte: 100 }), 't', { amount: 99.5 }).verdict).toBe('deny');
      expect(decide(when({ arg: 'amount', lte: 100 }), 't', { amount: Number.NEGATIVE_INFINITY }).verdict).toBe('deny');
    });

    it('reads dotted paths into nested objects and arrays', () => {
      const policy = when({ arg: 'options.targets.1', equals: 'b' });
      expect(decide(policy, 't', { options: { targets: ['a', 'b'] } }).verdict).toBe('allow');
      expect(decide(policy, 't', { options: { targets: ['a'] } }).verdict).toBe('deny');
      expect(decide(policy, 't', { options: 'flat' }).verdict).toBe('deny');
    });

    it('under a deny rule, a path that runs into the wrong shape may hold; one whose first key is absent does not', () => {
      const deny = (arg: string): PolicyInput => ({
        version: 1,
        default: 'allow',
        rules: [{ id: 'no-b', tools: ['t'], when: [{ arg, equals: 'b' }], verdict: 'deny' }],
      });
      const policy = deny('options.targets.1');
      // Absent at the top: the condition does not hold, the default allows.
      expect(decide(policy, 't', {}).verdict).toBe('allow');
      // Deeper, anything but the expected shape is unknown, and unknown holds for a deny.
      expect(decide(policy, 't', { options: { targets: ['a'] } }).verdict).toBe('deny');
      expect(decide(policy, 't', { options: 'flat' }).verdict).toBe('deny');
      expect(decide(policy, 't', { options: null }).verdict).toBe('deny');
      expect(decide(policy, 't', { options: { targets: { 1: 'a' } } }).verdict).toBe('allow');
      expect(decide(policy, 't', { options: { other: 1 } }).verdict).toBe('deny');
      expect(decide(deny('list.x'), 't', { list: ['b'] }).verdict).toBe('deny');
      expect(decide(deny('list.01'), 't', { list: ['a', 'c'] }).verdict).toBe('deny');
      expect(decide(deny('list.1'), 't', { list: ['a', 'c'] }).verdict).toBe('allow');
      // An array's own `length` is no item: never read as a value.
      expect(decide(when({ arg: 'list.length', equals: 2 }), 't', { list: ['a', 'c'] }).verdict).toBe('deny');
      const getter = Object.defineProperty({}, 'v', { get: () => 'b', enumerable: true });
      expect(decide(deny('o.v'), 't', { o: getter }).verdict).toBe('deny');
    });

    it('requires every condition of a rule', () => {
      const policy: PolicyInput = {
        version: 1,
        rules: [
          {
            id: 'both',
            tools: ['t'],
            when: [
              { arg: 'a', equals: 1 },
              { arg: 'b', equals: 2 },
            ],
            verdict: 'allow',
          },
        ],
      };
      expect(decide(policy, 't', { a: 1, b: 2 }).verdict).toBe('allow');
      expect(decide(policy, 't', { a: 1, b: 3 }).verdict).toBe('deny');
    });
  });

  describe('when several rules match (precedence)', () => {
    const policy: PolicyInput = {
      version: 1,
      default: 'allow',
      rules: [
        { id: 'shell-ok', tools: ['*'], verdict: 'allow' },
        { id: 'shell-asks', tools: ['shell'], when: [{ arg: 'command', startsWith: 'git' }], verdict: 'ask' },
        {
          id: 'no-recursive-delete',
          tools: ['shell', 'bash'],
          when: [{ arg: 'command', matches: 'rm\\s+-rf' }],
          verdict: 'deny',
          reason: 'recursive delete',
        },
        { id: 'second-deny', tools: ['shell'], when: [{ arg: 'command', contains: 'rm' }], verdict: 'deny' },
      ],
    };

    it('the most restrictive matching rule wins, whatever the order, and names itself', () => {
      expect(decide(policy, 'shell', { command: 'git rm -rf x' })).toEqual({
        verdict: 'deny',
        reason: 'recursive delete',
        rule: 'no-recursive-delete',
      });
      expect(decide(policy, 'shell', { command: 'git status' })).toEqual({
        verdict: 'ask',
        reason: 'rule "shell-asks"',
        rule: 'shell-asks',
      });
      expect(decide(policy, 'shell', { command: 'ls' })).toEqual({ verdict: 'allow', rule: 'shell-ok' });
    });

    it('among rules of the same verdict, the first in the document decides', () => {
      expect(decide(policy, 'shell', { command: 'rm -rf /' })).toMatchObject({ rule: 'no-recursive-delete' });
    });

    it('the default does not apply when any rule matches', () => {
      const denyDefault: PolicyInput = {
        version: 1,
        default: 'deny',
        rules: [{ id: 'a', tools: ['x'], verdict: 'allow' }],
      };
      expect(decide(denyDefault, 'x')).toEqual({ verdict: 'allow', rule: 'a' });
    });
  });

  describe('when a tool runs code', () => {
    it("judges a python tool's code string like any argument", () => {
      const policy: PolicyInput = {
        version: 1,
        default: 'allow',
        rules: [
          {
            id: 'no-subprocess',
            tools: ['python', 'python_repl'],
            when: [{ arg: 'code', matches: '\\b(subprocess|os\\.system)\\b' }],
            verdict: 'deny',
            reason: 'code may not spawn processes',
          },
        ],
      };
      expect(decide(policy, 'python', { code: 'import os\nos.system("rm -rf /")' })).toMatchObject({
        verdict: 'deny',
        rule: 'no-subprocess',
      });
      expect(decide(policy, 'python', { code: 'print(1 + 1)' }).verdict).toBe('allow');
    });
  });

  describe('when the input tries to change the decision', () => {
    it('reads own properties only: __proto__ and constructor keys are data, inherited values are absent', () => {
      const policy: PolicyInput = {
        version: 1,
        rules: [
          { id: 'ctor', tools: ['t'], when: [{ arg: 'constructor.name', equals: 'Object' }], verdict: 'allow' },
          { id: 'safe', tools: ['u'], when: [{ arg: 'safe', equals: true }], verdict: 'allow' },
          { id: 'proto', tools: ['v'], when: [{ arg: 'toString', equals: null }], verdict: 'allow' },
        ],
      };
      expect(decide(policy, 't', {}).verdict).toBe('deny');
      const viaJson = JSON.parse('{"__proto__": {"safe": true}}') as unknown;
      expect(Object.hasOwn(viaJson as object, '__proto__')).toBe(true);
      expect(decide(policy, 'u', viaJson).verdict).toBe('deny');
      expect(decide(policy, 'u', Object.create({ safe: true }) as unknown).verdict).toBe('deny');
      expect(decide(policy, 'v', {}).verdict).toBe('deny');
      const own = JSON.parse('{"constructor": {"name": "Object"}}') as unknown;
      expect(decide(policy, 't', own).verdict).toBe('allow');
    });

    it('never runs a getter in the input', () => {
      let read = false;
      const input = Object.defineProperty({}, 'mode', {
        enumerable: true,
        get: () => {
          read = true;
          return 'read';
        },
      });
      expect(decide(when({ arg: 'mode', equals: 'read' }), 't', input).verdict).toBe('deny');
      expect(read).toBe(false);
    });
  });

  describe('when a pattern backtracks catastrophically elsewhere', () => {
    it('decides in linear time even for a pattern that backtracks exponentially elsewhere', () => {
      const gate = policyGate(when({ arg: 'command', matches: '^(a+)+$' }));
      const evil = `${'a'.repeat(50_000)}!`;
      // A backtracking engine would not finish this within the test's timeout (nor the age of the universe);
      // RE2 answers at once. Speed itself is measured in the benchmarks, not asserted here.
      const decision = gate.decide(request('t', { command: evil })) as Decision;
      expect(decision.verdict).toBe('deny');
    });

    it('refuses patterns that cannot run in linear time (backreferences, lookaround) when loaded', () => {
      expect(() => policyGate(when({ arg: 'command', matches: '(a)\\1' }))).toThrow(
        /rule=<cond>, field=<rules\[0\]\.when\[0\]\.matches> \| not a pattern that runs in linear time/,
      );
      expect(() => policyGate(when({ arg: 'command', matches: '(?=rm)rm' }))).toThrow(PolicyError);
    });
  });

  describe('when a policy is compiled', () => {
    it('compiles a loaded policy once: policyGate reuses it, and the policy is frozen', () => {
      const path = policyFile('frozen.yaml', 'version: 1\nrules:\n  - id: a\n    tools: [x]\n    verdict: allow\n');
      const policy = loadPolicy(path);
      expect(Object.isFrozen(policy.rules[0])).toBe(true);
      expect(parsePolicy(policy)).toBe(parsePolicy(policy));
      expect(policyGate(policy).decide(request('x'))).toEqual({ verdict: 'allow', rule: 'a' });
    });

    it('decides without testing rules for other exact tool names', () => {
      const rules = Array.from({ length: 2000 }, (_, i) => ({
        id: `r${i}`,
        tools: [`tool_${i}`],
        when: [{ arg: 'x', matches: 'a+b' }],
        verdict: 'deny' as const,
      }));
      const gate = policyGate({ version: 1, default: 'allow', rules });
      // Count every look into the input: only the rules indexed under the call's tool name may read it.
      let reads = 0;
      const input = new Proxy(
        { x: 'aab' },
        {
          get: (target, key, receiver) => {
            reads += 1;
            return Reflect.get(target, key, receiver) as unknown;
          },
          getOwnPropertyDescriptor: (target, key) => {
            reads += 1;
            return Reflect.getOwnPropertyDescriptor(target, key);
          },
          has: (target, key) => {
            reads += 1;
            return Reflect.has(target, key);
          },
          ownKeys: (target) => {
            reads += 1;
            return Reflect.ownKeys(target);
          },
        },
      );
      expect(gate.decide(request('unrelated', input))).toEqual({ verdict: 'allow', rule: 'default' });
      expect(reads).toBe(0);
      expect(gate.decide(request('tool_5', input))).toMatchObject({ verdict: 'deny', rule: 'r5' });
      expect(reads).toBeGreaterThan(0);
      expect(reads).toBeLessThanOrEqual(4);
    });

    it('judges each shell part against the rules naming its program and every rule naming none', () => {
      const policy: PolicyInput = {
        version: 1,
        default: 'allow',
        rules: [
          { id: 'git', tools: ['bash'], when: [{ arg: 'command', shell: { program: ['git'] } }], verdict: 'ask' },
          {
            id: 'etc',
            tools: ['bash'],
            when: [{ arg: 'command', shell: { writesTo: { path: { under: ['/etc'] } } } }],
            verdict: 'deny',
          },
          { id: 'rm', tools: ['bash'], when: [{ arg: 'command', shell: { program: ['/bin/rm'] } }], verdict: 'deny' },
        ],
      };
      const verdict = (command: string): Decision => decide(policy, 'bash', { command });
      // A rule that names no program holds on a part whose program another rule names, and on any other.
      expect(verdict('git status > /etc/motd')).toMatchObject({ verdict: 'deny', rule: 'etc' });
      expect(verdict('ls > /etc/motd')).toMatchObject({ verdict: 'deny', rule: 'etc' });
      expect(verdict('git status')).toMatchObject({ verdict: 'ask', rule: 'git' });
      // Programs are compared by basename, whatever path the rule or the line gives.
      expect(verdict('./rm x')).toMatchObject({ verdict: 'deny', rule: 'rm' });
      expect(verdict('ls; \\rm x')).toMatchObject({ verdict: 'deny', rule: 'rm' });
      expect(verdict('ls | wc -l')).toEqual({ verdict: 'allow', rule: 'default' });
      // A part whose program is not known meets every rule that could hold on it.
      expect(verdict('$p status')).toMatchObject({ verdict: 'deny' });
    });

    it('two shell arguments are judged per combination of their parts; past 4096 combinations the call is denied', () => {
      const policy: PolicyInput = {
        version: 1,
        default: 'allow',
        rules: [
          { id: 'rm-a', tools: ['two'], when: [{ arg: 'a', shell: { program: ['rm'] } }], verdict: 'deny' },
          { id: 'ls-b', tools: ['two'], when: [{ arg: 'b', shell: { program: ['ls'] } }], verdict: 'ask' },
        ],
      };
      const lines = (n: number, last: string): string =>
        [...Array.from({ length: n - 1 }, () => 'true'), last].join('; ');
      // 64 × 64 parts: every combination judged, the worst one decides.
      expect(decide(policy, 'two', { a: lines(64, 'rm x'), b: lines(64, 'true') })).toMatchObject({
        verdict: 'deny',
        rule: 'rm-a',
      });
      expect(decide(policy, 'two', { a: lines(64, 'true'), b: lines(64, 'ls') })).toMatchObject({
        verdict: 'ask',
        rule: 'ls-b',
      });
      expect(decide(policy, 'two', { a: lines(64, 'true'), b: lines(64, 'true') })).toEqual({
        verdict: 'allow',
        rule: 'default',
      });
      // 64 × 65: too many to judge, denied whatever they hold.
      expect(decide(policy, 'two', { a: lines(64, 'true'), b: lines(65, 'true') })).toEqual({
        verdict: 'deny',
        reason: 'the command lines of this call have too many parts to judge (4160 combinations)',
        rule: 'default',
      });
    });
  });
});

/**
 * Places reach a policy as segments that are never empty and never contain `/` (ids are escaped, an empty id gets
 * a placeholder), so a glob part that differs only on empty segments or on a `/` inside a segment cannot be told
 * apart here: `[^/]` against `.` in `?`, `(?:[^/]+/)*` against `(?:.+/)*` for a leading `**`.
 */
describe("a rule's path globs (`paths:`)", () => {
  describe('when a glob is matched segment by segment', () => {
    const cases: [string, string[], string[]][] = [
      // [glob, places it matches, places it does not]
      ['**', ['a', 'a/b', 'a/b/c'], []],
      ['a/**', ['a', 'a/b', 'a/b/c'], ['ab', 'b/a', 'b']],
      ['**/w', ['w', 'a/w', 'a/b/w'], ['aw', 'a/w/x', 'a/xw']],
      ['a/**/w', ['a/w', 'a/b/w', 'a/b/c/w'], ['a/bw', 'b/a/w', 'a/w/x', 'aw']],
      ['a/*', ['a/b', 'a/bc'], ['a/b/c', 'a', 'ab']],
      ['a/*/w', ['a/b/w'], ['a/w', 'a/b/c/w']],
      ['a/?', ['a/b'], ['a/bc', 'a/']],
      ['a.b/c', ['a.b/c'], ['axb/c']],
      ['a/(x)', ['a/(x)'], ['a/x']],
    ];
    for (const [glob, yes, no] of cases) {
      it(`"${glob}"`, () => {
        const policy: PolicyInput = {
          version: 1,
          rules: [{ id: 'here', tools: ['t'], paths: [glob], verdict: 'allow' }],
        };
        for (const place of yes) expect(decide(policy, 't', {}, place.split('/')).verdict, place).toBe('allow');
        for (const place of no) expect(decide(policy, 't', {}, place.split('/')).verdict, place).toBe('deny');
      });
    }

    it('"**" inside a segment is refused when the policy is compiled', () => {
      expect(() =>
        policyGate({ version: 1, rules: [{ id: 'x', tools: ['t'], paths: ['a**'], verdict: 'allow' }] }),
      ).toThrow(/"\*\*" must be a whole path segment/);
    });
  });
});

describe('PolicyError', () => {
  describe('when a policy is invalid (it names the file, the rule and the field)', () => {
    const cases: [string, string, RegExp][] = [
      ['wrong version', 'version: 2\n', /file=<.*wrong-version\.yaml>, field=<version> \| /],
      [
        'bad verdict',
        'version: 1\nrules:\n  - id: r1\n    tools: [x]\n    verdict: maybe\n',
        /rule=<r1>, field=<rules\[0\]\.verdict>/,
      ],
      [
        'unknown key',
        'version: 1\nrules:\n  - id: r1\n    tools: [x]\n    verdict: allow\n    verdcit: deny\n',
        /rule=<r1>, field=<rules\[0\]\.verdcit> \| unknown key "verdcit"/,
      ],
      [
        'unknown operator',
        'version: 1\nrules:\n  - id: r1\n    tools: [x]\n    when:\n      - arg: a\n        regex: x\n    verdict: deny\n',
        /rule=<r1>, field=<rules\[0\]\.when\[0\]\.regex> \| unknown key "regex"/,
      ],
      [
        'no operator',
        'version: 1\nrules:\n  - id: r1\n    tools: [x]\n    when:\n      - arg: a\n    verdict: deny\n',
        /rule=<r1>, field=<rules\[0\]\.when\[0\]> \| a condition needs one operator/,
      ],
      [
        'two operators',
        'version: 1\nrules:\n  - id: r1\n    tools: [x]\n    when:\n      - arg: a\n        equals: 1\n        lt: 3\n    verdict: deny\n',
        /field=<rules\[0\]\.when\[0\]> \| a condition takes exactly one operator, found equals and lt/,
      ],
      [
        'no tools',
        'version: 1\nrules:\n  - id: r1\n    tools: []\n    verdict: deny\n',
        /rule=<r1>, field=<rules\[0\]\.tools> \| list at least one tool/,
      ],
      ['missing id', 'version: 1\nrules:\n  - tools: [x]\n    verdict: deny\n', /rule=<#1>, field=<rules\[0\]\.id>/],
      [
        'duplicate id',
        'version: 1\nrules:\n  - id: r1\n    tools: [x]\n    verdict: deny\n  - id: r1\n    tools: [y]\n    verdict: allow\n',
        /rule=<r1>, field=<rules\[1\]\.id> \| duplicate rule id "r1"/,
      ],
      [
        'bad path glob',
        'version: 1\nrules:\n  - id: r1\n    tools: [x]\n    paths: ["a/b**"]\n    verdict: deny\n',
        /rule=<r1>, field=<rules\[0\]\.paths\[0\]> \| "\*\*" must be a whole path segment/,
      ],
      [
        'bad arg path',
        'version: 1\nrules:\n  - id: r1\n    tools: [x]\n    when:\n      - arg: a..b\n        equals: 1\n    verdict: deny\n',
        /field=<rules\[0\]\.when\[0\]\.arg> \| expected a dotted path/,
      ],
      ['YAML syntax', 'version: 1\nrules: [\n', /field=<\(document\)> \| not valid YAML: .* at line 3, column 1$/],
      ['duplicate YAML key', 'version: 1\nversion: 1\n', /field=<\(document\)> \| not valid YAML/],
      [
        'a prototype key',
        'version: 1\n__proto__: { default: allow }\n',
        /field=<__proto__> \| unknown key "__proto__"/,
      ],
    ];

    for (const [name, text, expected] of cases) {
      it(`${name}`, () => {
        const path = policyFile(`${name.replaceAll(' ', '-')}.yaml`, text);
        let error: unknown;
        try {
          loadPolicy(path);
        } catch (e) {
          error = e;
        }
        expect(error).toBeInstanceOf(PolicyError);
        expect(error).toMatchObject({ code: 'INVALID_POLICY', name: 'PolicyError', file: path });
        expect((error as Error).message).toMatch(expected);
      });
    }

    it('a JSON policy file, and its syntax errors', () => {
      const good = policyFile(
        'good.json',
        JSON.stringify({ version: 1, rules: [{ id: 'a', tools: ['x'], verdict: 'allow' }] }),
      );
      expect(loadPolicy(good).rules[0]?.id).toBe('a');
      const bad = policyFile('bad.json', '{"version": 1,');
      expect(() => loadPolicy(bad)).toThrow(/file=<.*bad\.json>, field=<\(document\)> \| not valid JSON/);
    });

    it('a missing file', () => {
      expect(() => loadPolicy(join(scratch, 'absent.yaml'))).toThrow(
        /absent\.yaml>, field=<\(document\)> \| cannot read the file \(ENOENT\)/,
      );
    });

    it('lists every problem when there are several, and names an inline policy', () => {
      const error = (() => {
        try {
          policyGate({ version: 1, rules: [{ id: 'a', tools: [], verdict: 'no' }] } as never);
        } catch (e) {
          return e as PolicyError;
        }
        return undefined;
      })();
      expect(error?.issues).toHaveLength(2);
      expect(error?.message).toMatch(
        /^file=<\(inline\)> \| invalid policy \(2 problems\)\n {2}- file=<\(inline\)>, rule=<a>/,
      );
    });

    it('PolicySchema is a strict zod schema; the default is resolved with the presets (deny when none sets one)', () => {
      expect(PolicySchema.parse({ version: 1 })).toEqual({ version: 1, rules: [] });
      expect(parsePolicy({ version: 1 }).policy).toEqual({ version: 1, default: 'deny', rules: [] });
      expect(PolicySchema.safeParse({ version: 1, extra: true }).success).toBe(false);
    });
  });
});

/**
 * The bounds of the condition schema (`src/policy/schema.ts`) one by one, each with a value just inside it: written
 * against mutants that survived the suite (`npm run mutation`), which loosened an anchor, a minimum
 * length or an exactly-one refinement without any test noticing.
 */
describe('the condition schema', () => {
  describe('when a value is just outside or just inside a bound (refused, accepted)', () => {
    const cases: [string, Record<string, unknown>, Record<string, unknown>, RegExp][] = [
      [
        'an absolute directory',
        { arg: 'p', path: { under: ['/tmp'] } },
        { arg: 'p', path: { under: ['tmp/x'] } },
        /expected an absolute path, starting with "\/", or "\$WORKSPACE"/,
      ],
      [
        'a workspace directory',
        { arg: 'p', path: { under: ['$WORKSPACE/src'] } },
        { arg: 'p', path: { under: ['$WORKSPACEX'] } },
        /expected an absolute path/,
      ],
      ['a non-empty under', { arg: 'p', path: { under: ['/a', '/b'] } }, { arg: 'p', path: { under: [] } }, /under/],
      [
        'a non-empty notUnder',
        { arg: 'p', path: { notUnder: ['/a', '/b'] } },
        { arg: 'p', path: { notUnder: [] } },
        /notUnder/,
      ],
      [
        'under or notUnder',
        { arg: 'p', path: { notUnder: ['/a'] } },
        { arg: 'p', path: { cwd: '/a' } },
        /a path condition needs under or notUnder/,
      ],
      ['non-empty hosts', { arg: 'u', url: { hosts: ['a.com', 'b.com'] } }, { arg: 'u', url: { hosts: [] } }, /hosts/],
      [
        'a scheme',
        { arg: 'u', url: { schemes: ['https', 'git+ssh:'] } },
        { arg: 'u', url: { schemes: ['1http'] } },
        /expected a scheme such as "https"/,
      ],
      [
        'a scheme, whole',
        { arg: 'u', url: { schemes: ['https'] } },
        { arg: 'u', url: { schemes: ['https://'] } },
        /expected a scheme/,
      ],
      [
        'a scheme of more than one letter',
        { arg: 'u', url: { schemes: ['ftp'] } },
        { arg: 'u', url: { schemes: [' ftp'] } },
        /expected a scheme/,
      ],
      [
        'hosts, schemes or private',
        { arg: 'u', url: { private: false } },
        { arg: 'u', url: {} },
        /a url condition needs hosts, schemes or private/,
      ],
      [
        'a url by schemes alone',
        { arg: 'u', url: { schemes: ['http'] } },
        { arg: 'u', url: {} },
        /a url condition needs/,
      ],
      [
        'variable names',
        { arg: 'c', shell: { assigns: ['PATH', '_X1'] } },
        { arg: 'c', shell: { assigns: ['1X'] } },
        /expected an environment variable name/,
      ],
      [
        'a whole variable name',
        { arg: 'c', shell: { assigns: ['LD_PRELOAD'] } },
        { arg: 'c', shell: { assigns: ['LD-PRELOAD'] } },
        /expected an environment variable name/,
      ],
      [
        'a variable name from its start',
        { arg: 'c', shell: { assigns: ['A'] } },
        { arg: 'c', shell: { assigns: ['-A'] } },
        /expected an environment variable name/,
      ],
      [
        'a flag',
        { arg: 'c', shell: { program: ['rm'], anyFlag: ['-r', '--force'] } },
        { arg: 'c', shell: { program: ['rm'], anyFlag: ['x-r'] } },
        /expected a flag/,
      ],
      [
        'non-empty allFlags',
        { arg: 'c', shell: { program: ['rm'], allFlags: ['-r', '-f'] } },
        { arg: 'c', shell: { program: ['rm'], allFlags: [] } },
        /allFlags/,
      ],
      [
        'args with one test',
        { arg: 'c', shell: { args: { first: 'x' } } },
        { arg: 'c', shell: { args: {} } },
        /args needs one of matches, path, first/,
      ],
      [
        'args with no more than one test',
        { arg: 'c', shell: { args: { matches: 'x' } } },
        { arg: 'c', shell: { args: { matches: 'x', first: 'y' } } },
        /args takes exactly one of matches, path, first, found matches and first/,
      ],
      [
        'writesTo with one test',
        { arg: 'c', shell: { writesTo: { matches: 'x' } } },
        { arg: 'c', shell: { writesTo: {} } },
        /writesTo needs one of matches, path/,
      ],
      [
        'a dialect with a shell test',
        { arg: 'c', dialect: 'sh', shellOpaque: true },
        { arg: 'c', dialect: 'sh', equals: 'x' },
        /dialect applies to shell and shellOpaque conditions only/,
      ],
      [
        'a dialect with a shell condition',
        { arg: 'c', dialect: 'bash', shell: { program: ['ls'] } },
        { arg: 'c', dialect: 'zsh', shell: { program: ['ls'] } },
        /dialect/,
      ],
    ];
    for (const [name, inside, outside, message] of cases) {
      it(name, () => {
        expect(() => policyGate(when(inside))).not.toThrow();
        expect(() => policyGate(when(outside))).toThrow(message);
      });
    }
  });
});

describe('loadPolicy', () => {
  describe('when a loaded policy is changed afterwards (it cannot drift from what was compiled)', () => {
    it('is frozen all the way down, so the gate it gives again enforces exactly what it says', () => {
      const path = policyFile(
        'frozen.yaml',
        'version: 1\nrules:\n  - id: ls-ok\n    tools: [ls]\n    when:\n      - arg: path\n        path: { under: [/tmp] }\n    verdict: allow\n',
      );
      const policy = loadPolicy(path);
      const rule = policy.rules[0]!;
      for (const value of [policy, policy.rules, rule, rule.tools, rule.when, rule.when![0]]) {
        expect(Object.isFrozen(value)).toBe(true);
      }
      expect(() => {
        (rule as { verdict: string }).verdict = 'deny';
      }).toThrow(TypeError);
      expect(() => (policy.rules as unknown[]).push({ id: 'x', tools: ['rm'], verdict: 'allow' })).toThrow(TypeError);
      // Given back, it is the compiled policy it was loaded as.
      expect(parsePolicy(policy)).toBe(parsePolicy(policy));
      expect((policyGate(policy).decide(request('ls', { path: '/tmp/a' })) as Decision).verdict).toBe('allow');
      expect((policyGate(policy).decide(request('rm')) as Decision).verdict).toBe('deny');
    });
  });
});
