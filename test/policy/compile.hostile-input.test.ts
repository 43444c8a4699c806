/**
 * What a model, an MCP server or a data file names cannot loosen a rule: arguments of the wrong type,
 * getters, non-finite numbers, ids with newlines or slashes, duplicate keys in a JSON policy, agents that
 * sit at several places or at none, and two unnamed policies sharing a name.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/enforce/digest.js';
import { type Decision, loadPolicy, type PolicyInput, policyGate, type ToolCallRequest } from '../../src/index.js';
import { escapeSegment, joinPath, segmentOf, UNNAMED } from '../../src/tree-paths.js';
import { parsePolicy } from '../../src/policy/load.js';
import { policyId } from '../../src/policy/policy-gate.js';

const scratch = join(dirname(fileURLToPath(import.meta.url)), '../.generated/policy-hostile');
beforeAll(() => mkdirSync(scratch, { recursive: true }));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function request(toolName: string, input: unknown, paths: string[][] = [['app', 'agent']]): ToolCallRequest {
  return {
    toolUseId: 't1',
    toolName,
    input,
    agentId: 'agent',
    agentName: 'agent',
    path: paths[0] ?? ['agent'],
    paths,
    toolKind: 'function',
  };
}

function verdict(policy: PolicyInput, toolName: string, input: unknown, paths?: string[][]): string {
  return (policyGate(policy).decide(request(toolName, input, paths)) as Decision).verdict;
}

/** `transfers` allowed, `big-transfers` denied when `amount gt 1000` (the README's example). */
const transfers: PolicyInput = {
  version: 1,
  rules: [
    { id: 'big-transfers', tools: ['transfer'], when: [{ arg: 'amount', gt: 1000 }], verdict: 'deny' },
    { id: 'transfers', tools: ['transfer'], verdict: 'allow' },
  ],
};

describe('policyGate judging hostile arguments', () => {
  describe('when an argument has the wrong type (deny and ask fail closed)', () => {
    it.each([
      ['a numeric string', '5000'],
      ['Infinity', Number.POSITIVE_INFINITY],
      ['NaN', Number.NaN],
      ['a number wrapped in an array', [5000]],
      ['a number wrapped in an object', { value: 5000 }],
      ['a boolean', true],
      ['null', null],
    ])('%s counts as matching a deny rule', (_, amount) => {
      expect(verdict(transfers, 'transfer', { amount })).toBe('deny');
    });

    it('a number of the right type is judged by the operator; an absent argument fails the condition', () => {
      expect(verdict(transfers, 'transfer', { amount: 5000 })).toBe('deny');
      expect(verdict(transfers, 'transfer', { amount: 50 })).toBe('allow');
      expect(verdict(transfers, 'transfer', {})).toBe('allow');
    });

    it('a matches deny on command catches the command wrapped in an array', () => {
      const policy: PolicyInput = {
        version: 1,
        default: 'allow',
        rules: [{ id: 'no-rm', tools: ['sh'], when: [{ arg: 'command', matches: 'rm\\s+-rf' }], verdict: 'deny' }],
      };
      expect(verdict(policy, 'sh', { command: ['rm -rf /'] })).toBe('deny');
      expect(verdict(policy, 'sh', { command: 'ls' })).toBe('allow');
    });

    it('the same values never satisfy an allow rule', () => {
      const policy: PolicyInput = {
        version: 1,
        rules: [{ id: 'small', tools: ['transfer'], when: [{ arg: 'amount', lt: 100 }], verdict: 'allow' }],
      };
      for (const amount of ['5', Number.NEGATIVE_INFINITY, [5], { v: 5 }, null]) {
        expect(verdict(policy, 'transfer', { amount })).toBe('deny');
      }
      expect(verdict(policy, 'transfer', { amount: 5 })).toBe('allow');
    });

    it('"present" is the first segment: a middle segment of the wrong shape is present with the wrong type', () => {
      const policy: PolicyInput = {
        version: 1,
        default: 'allow',
        rules: [
          { id: 'shadow', tools: ['read'], when: [{ arg: 'options.path', equals: '/etc/shadow' }], verdict: 'deny' },
        ],
      };
      expect(verdict(policy, 'read', { options: [{ path: '/etc/shadow' }] })).toBe('deny');
      expect(verdict(policy, 'read', { options: 'x' })).toBe('deny');
      expect(verdict(policy, 'read', { options: { path: '/tmp/x' } })).toBe('allow');
      expect(verdict(policy, 'read', { other: 1 })).toBe('allow');
    });

    it('equals and in want the JSON type of their values; contains a string or an array of strings', () => {
      const policy: PolicyInput = {
        version: 1,
        default: 'allow',
        rules: [
          { id: 'eq', tools: ['a'], when: [{ arg: 'mode', equals: 'write' }], verdict: 'deny' },
          { id: 'in', tools: ['b'], when: [{ arg: 'level', in: [1, 2] }], verdict: 'ask' },
          { id: 'has', tools: ['c'], when: [{ arg: 'tags', contains: 'prod' }], verdict: 'deny' },
        ],
      };
      expect(verdict(policy, 'a', { mode: ['write'] })).toBe('deny');
      expect(verdict(policy, 'a', { mode: 'read' })).toBe('allow');
      expect(verdict(policy, 'b', { level: '1' })).toBe('ask');
      expect(verdict(policy, 'b', { level: 3 })).toBe('allow');
      expect(verdict(policy, 'c', { tags: ['dev', 7] })).toBe('deny');
      expect(verdict(policy, 'c', { tags: ['dev'] })).toBe('allow');
      expect(verdict(policy, 'c', { tags: 'production' })).toBe('deny');
    });

    it('applies to shell, path and url conditions too', () => {
      const policy: PolicyInput = {
        version: 1,
        default: 'allow',
        rules: [
          { id: 'sh', tools: ['bash'], when: [{ arg: 'command', shell: { program: ['rm'] } }], verdict: 'deny' },
          { id: 'p', tools: ['edit'], when: [{ arg: 'path', path: { under: ['/etc'] } }], verdict: 'deny' },
          { id: 'u', tools: ['fetch'], when: [{ arg: 'url', url: { private: true } }], verdict: 'deny' },
        ],
      };
      expect(verdict(policy, 'bash', { command: ['rm -rf /'] })).toBe('deny');
      expect(verdict(policy, 'edit', { path: { p: '/etc/x' } })).toBe('deny');
      expect(verdict(policy, 'fetch', { url: 42 })).toBe('deny');
    });
  });

  describe('when an argument is a getter (never read)', () => {
    it('a getter on the argument is never run, and counts as the wrong type', () => {
      let reads = 0;
      const input = {};
      Object.defineProperty(input, 'amount', {
        enumerable: true,
        get: () => {
          reads += 1;
          return 5;
        },
      });
      expect(verdict(transfers, 'transfer', input)).toBe('deny');
      const allowSmall: PolicyInput = {
        version: 1,
        rules: [{ id: 'small', tools: ['transfer'], when: [{ arg: 'amount', lt: 100 }], verdict: 'allow' }],
      };
      expect(verdict(allowSmall, 'transfer', input)).toBe('deny');
      expect(reads).toBe(0);
    });

    it('a getter in the middle of a dotted path is never run either', () => {
      let reads = 0;
      const options = {};
      Object.defineProperty(options, 'path', {
        enumerable: true,
        get: () => {
          reads += 1;
          return '/tmp/ok';
        },
      });
      const policy: PolicyInput = {
        version: 1,
        rules: [{ id: 'tmp', tools: ['read'], when: [{ arg: 'options.path', startsWith: '/tmp/' }], verdict: 'allow' }],
      };
      expect(verdict(policy, 'read', { options })).toBe('deny');
      expect(reads).toBe(0);
    });
  });

  describe('when a number is not finite', () => {
    it('-Infinity is not less than 100 for an allow rule, and Infinity is more than 1000 for a deny rule', () => {
      const allow: PolicyInput = {
        version: 1,
        rules: [{ id: 'small', tools: ['pay'], when: [{ arg: 'amount', lt: 100 }], verdict: 'allow' }],
      };
      expect(verdict(allow, 'pay', { amount: Number.NEGATIVE_INFINITY })).toBe('deny');
      expect(verdict(allow, 'pay', { amount: Number.NaN })).toBe('deny');
      expect(verdict(allow, 'pay', { amount: 99 })).toBe('allow');
      expect(verdict(transfers, 'transfer', { amount: Number.POSITIVE_INFINITY })).toBe('deny');
    });
  });

  describe('when an id holds a newline or a slash (globs match every character)', () => {
    it('a pipeline/** deny rule catches an id with a newline, and a tool glob a name with one', () => {
      const policy: PolicyInput = {
        version: 1,
        default: 'allow',
        rules: [
          { id: 'pipeline', tools: ['*'], paths: ['pipeline/**'], verdict: 'deny' },
          { id: 'shells', tools: ['sh*'], verdict: 'deny' },
          { id: 'one', tools: ['x?y'], verdict: 'deny' },
        ],
      };
      expect(verdict(policy, 'read', {}, [['pipeline', segmentOf('evil\nwriter', UNNAMED)]])).toBe('deny');
      expect(verdict(policy, 'read', {}, [[segmentOf('pipe\nline', UNNAMED), 'w']])).toBe('allow');
      expect(verdict(policy, 'sh\nell', {})).toBe('deny');
      expect(verdict(policy, 'x\ny', {})).toBe('deny');
    });

    it('an id with a slash stays one segment: a paths rule for acme/* does not reach tenant acme/prod', () => {
      const policy: PolicyInput = {
        version: 1,
        rules: [{ id: 'acme', tools: ['*'], paths: ['acme/*'], verdict: 'allow' }],
      };
      expect(verdict(policy, 't', {}, [[segmentOf('acme', ''), segmentOf('writer', '')]])).toBe('allow');
      expect(verdict(policy, 't', {}, [[segmentOf('acme/prod', ''), segmentOf('writer', '')]])).toBe('deny');
      expect(verdict(policy, 't', {}, [[segmentOf('acme%2Fprod', ''), segmentOf('writer', '')]])).toBe('deny');
    });
  });
});

describe('segmentOf, escapeSegment and joinPath', () => {
  describe('when ids are escaped into segments (they never collide)', () => {
    const id = fc.oneof(
      fc.string(),
      fc.constantFrom(
        'acme/prod',
        'acme%2Fprod',
        'acme%252Fprod',
        'a#2',
        'a%232',
        'a/b',
        '%',
        '#',
        '/',
        '',
        '(unnamed)',
        '#unnamed',
      ),
    );

    it('distinct id lists join to distinct strings (segmentOf and escapeSegment, then joinPath)', () => {
      // A path has at least one segment. segmentOf gives an empty id the fallback, which starts with "#": no
      // escaped id can be spelled like it, not even "#unnamed" or "(unnamed)".
      const path = fc.array(id, { minLength: 1, maxLength: 5 });
      fc.assert(
        fc.property(path, path, (a, b) => {
          fc.pre(JSON.stringify(a) !== JSON.stringify(b));
          expect(joinPath(a.map(escapeSegment))).not.toBe(joinPath(b.map(escapeSegment)));
          const segA = a.map((s) => segmentOf(s, UNNAMED));
          const segB = b.map((s) => segmentOf(s, UNNAMED));
          expect(joinPath(segA)).not.toBe(joinPath(segB));
        }),
        { numRuns: 2000 },
      );
    });

    it('a sibling suffix after escaping (#2) cannot be produced by an id', () => {
      fc.assert(
        fc.property(fc.string(), fc.integer({ min: 2, max: 99 }), (raw, n) => {
          expect(escapeSegment(raw)).not.toContain('#');
          expect(escapeSegment(raw)).not.toBe(`${escapeSegment(raw.split('#')[0] ?? '')}#${n}`);
        }),
      );
      expect(joinPath([escapeSegment('acme/prod')])).not.toBe(joinPath([escapeSegment('acme%2Fprod')]));
      expect(joinPath([escapeSegment('a#2')])).not.toBe(joinPath([`${escapeSegment('a')}#2`]));
    });
  });
});

describe('parsePolicy', () => {
  describe('when a JSON policy repeats a key', () => {
    it('refuses it, naming the key and the line', () => {
      const file = join(scratch, 'dup.json');
      writeFileSync(
        file,
        '{\n  "version": 1,\n  "rules": [\n    { "id": "r", "tools": ["x"],\n      "verdict": "deny",\n      "verdict": "allow" }\n  ]\n}\n',
      );
      expect(() => loadPolicy(file)).toThrow(/duplicate key "verdict" at line 6/);
    });

    it('sees through escapes, and leaves equal keys of different objects alone', () => {
      const escaped = join(scratch, 'escaped.json');
      writeFileSync(escaped, '{"version": 1, "default": "deny", "def\\u0061ult": "allow"}');
      expect(() => loadPolicy(escaped)).toThrow(/duplicate key "default" at line 1/);
      const fine = join(scratch, 'fine.json');
      writeFileSync(
        fine,
        '{"version": 1, "rules": [{"id": "a", "tools": ["x"], "verdict": "deny"}, {"id": "b", "tools": ["x"], "verdict": "deny"}]}',
      );
      expect(loadPolicy(fine).rules).toHaveLength(2);
    });
  });
});

describe('policyGate judging places', () => {
  describe('when path rules judge an agent at several known places, or none', () => {
    const policy: PolicyInput = {
      version: 1,
      default: 'ask',
      rules: [
        { id: 'research-deny', tools: ['rm'], paths: ['research/**'], verdict: 'deny' },
        { id: 'writer-allow', tools: ['cat'], paths: ['research/writer'], verdict: 'allow' },
      ],
    };

    it('a deny holds when any known place matches, or when none is known', () => {
      expect(verdict(policy, 'rm', {}, [['public-desk'], ['research', 'writer']])).toBe('deny');
      expect(verdict(policy, 'rm', {}, [])).toBe('deny');
      expect(verdict(policy, 'rm', {}, [['public-desk']])).toBe('ask');
    });

    it('an allow holds only when every known place matches, and never when none is known', () => {
      expect(verdict(policy, 'cat', {}, [['research', 'writer']])).toBe('allow');
      expect(verdict(policy, 'cat', {}, [['research', 'writer'], ['public-desk']])).toBe('ask');
      expect(verdict(policy, 'cat', {}, [])).toBe('ask');
    });

    it('check-policy judges an agent at several places the same way', () => {
      const compiled = parsePolicy(policy);
      expect(compiled.staticVerdict('cat', [['research', 'writer'], ['public-desk']]).verdict).toBe('ask');
      expect(compiled.staticVerdict('cat', [['research', 'writer']]).verdict).toBe('allow');
      expect(compiled.staticVerdict('rm', [['public-desk'], ['research', 'writer']]).verdict).toBe('deny');
    });
  });
});

describe('policyId', () => {
  describe('when a gate is identified by its policy', () => {
    it('two unnamed gates with different rules share the name policy but not the id', () => {
      const a = policyGate({ version: 1, default: 'deny' });
      const b = policyGate({ version: 1, default: 'allow' });
      expect(a.name).toBe(b.name);
      expect(a.id).not.toBe(b.id);
      expect(a.id).toMatch(/^[0-9a-f]{64}$/);
    });

    it('the id is the SHA-256 of the canonical policy after its presets are resolved', () => {
      const gate = policyGate({ version: 1, extends: ['gate-audit:read-only-shell'], workspace: '/w' });
      const resolved = parsePolicy({ version: 1, extends: ['gate-audit:read-only-shell'], workspace: '/w' }).policy;
      expect(gate.id).toBe(policyId(resolved));
      expect(canonicalJson(resolved)).toContain('read-only-shell:list-read-search');
      // The same policy written with its keys in another order is the same gate.
      expect(policyGate({ rules: [], default: 'ask', version: 1 }).id).toBe(
        policyGate({ version: 1, default: 'ask' }).id,
      );
      // A preset rule switched off changes what the gate decides, so it changes the id.
      const loosened = policyGate({
        version: 1,
        extends: ['gate-audit:read-only-shell'],
        disable: ['read-only-shell:rg-preprocessor'],
        workspace: '/w',
      });
      expect(loosened.id).not.toBe(gate.id);
    });
  });
});
