/**
 * A gate as the enforcement point reads it (`src/enforce/gate-identity.ts`): every member is read once and
 * type-checked at each call, so a gate that is not a usable gate (one configured with `configureGate`, which
 * takes anything, or one whose members change after `install` checked them) refuses the call and stops the run
 * instead of being half used; and its identity (the id it declares, or one id per gate object valid in this
 * process), as records and the audit show it. `install` refuses a gate whose id, record or approval it could not
 * use, and the audit reports an agent whose gate is not usable any more as `blocked`, not `gated`.
 *
 * Surviving mutants of gate-identity.ts (CONTRIBUTING.md, "Mutation testing"):
 * - `readOnce`'s `catch` returning `undefined` (→ `{}`, which also returns undefined): equivalent.
 * - `randomBytes(4).toString('hex')` (→ `toString('')`): a module-level constant, never evaluated under the mutation
 *   run's shared module cache (`isolate: false`); evaluated, it throws and every import fails. Its form is pinned.
 */
import { Graph } from '@strands-agents/sdk/multiagent';
import { describe, expect, it } from 'vitest';
import {
  allowAll,
  audit,
  configureGate,
  type Gate,
  type GateAuditError,
  GateFailedError,
  type GateRecord,
  install,
  installMultiagent,
  isGated,
} from '../../src/index.js';
import { call, isolateEachTest, ran, recordingTool, say, scriptedAgent, toolResults } from '../helpers/sdk.js';

isolateEachTest();

const allow = (): { verdict: 'allow' } => ({ verdict: 'allow' });

/** Runs one `ls` call with the configured gate; returns what the run threw (undefined when it ended). */
async function runWithConfigured(gate: unknown): Promise<{ error: unknown; agentId: string }> {
  configureGate(gate as Gate);
  const agent = scriptedAgent('a', [call('ls', { path: '/tmp' }), say('done')], { tools: [recordingTool('ls')] });
  install(agent);
  const error = await agent.invoke('go').then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(toolResults(agent)).toHaveLength(1);
  return { error, agentId: agent.id };
}

describe('viewGate', () => {
  describe('when the configured gate is not a usable gate: the call is refused and the run stops', () => {
    // Every gate below would allow the call if it were used: the tool must still not run.
    const broken: [string, unknown, string][] = [
      ['null', null, 'the gate is not an object'],
      ['a string', 'allow-all', 'the gate is not an object'],
      [
        'a function with a name and a decide() method',
        Object.assign(function policy(): void {}, { decide: allow }),
        'the gate is not an object',
      ],
      ['an object without a name', { decide: allow }, 'the gate has no string name'],
      ['an object with a numeric name', { name: 7, decide: allow }, 'the gate has no string name'],
      [
        'an object whose decide getter throws',
        Object.defineProperty({ name: 'throwing-decide' }, 'decide', {
          get(): never {
            throw new Error('no');
          },
        }),
        'reading the gate\'s "decide" threw: no',
      ],
      ['an object without decide()', { name: 'nameless-decide' }, 'gate "nameless-decide" has no decide() method'],
      [
        'a numeric id',
        { name: 'num-id', id: 42, decide: allow },
        'gate "num-id" declares an id that is not a non-empty string',
      ],
      [
        'an empty id',
        { name: 'empty-id', id: '', decide: allow },
        'gate "empty-id" declares an id that is not a non-empty string',
      ],
      [
        'a record that is a string',
        { name: 'str-record', decide: allow, record: 'log' },
        'gate "str-record" has a record that is not a function',
      ],
      [
        'an approval that is a string',
        { name: 'str-approval', decide: allow, approval: 'interrupt' },
        'gate "str-approval" has an approval that is not an object',
      ],
      [
        'an approval that is null',
        { name: 'null-approval', decide: allow, approval: null },
        'gate "null-approval" has an approval that is not an object',
      ],
    ];
    for (const [what, gate, why] of broken) {
      it(`${what}: ${why}`, async () => {
        const { error } = await runWithConfigured(gate);
        expect(ran).toEqual([]);
        expect(error).toBeInstanceOf(GateFailedError);
        expect((error as GateFailedError).failure).toContain(why);
      });
    }
  });

  describe('when a member of the gate changes after install', () => {
    it('a gate whose name turns into a number is refused at the call, not used', async () => {
      // install checks the name; the call reads it again, once, and judges what it read.
      let shifted = false;
      const gate = {
        get name(): unknown {
          return shifted ? 7 : 'shifty';
        },
        decide: allow,
      };
      const agent = scriptedAgent('a', [call('ls', { path: '/tmp' }), say('done')], { tools: [recordingTool('ls')] });
      install(agent, { gate: gate as unknown as Gate });
      shifted = true;
      const error = await agent.invoke('go').then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(ran).toEqual([]);
      expect((error as GateFailedError).failure).toContain('the gate has no string name');
    });
  });

  describe('when the gate is well formed', () => {
    it('a gate with a non-empty string id, a record and an approval object is used', async () => {
      const records: GateRecord[] = [];
      const { error } = await runWithConfigured({
        name: 'fine',
        id: 'policy:1',
        decide: allow,
        record: (r: GateRecord) => void records.push(r),
        approval: { via: 'callback', ask: () => ({ granted: false, reason: 'no' }) },
      });
      expect(error).toBeUndefined();
      expect(ran).toHaveLength(1);
      expect(records.map((r) => [r.event, r.gateId])).toEqual([['allow', 'policy:1']]);
    });
  });
});

describe('gateIdentity', () => {
  /** The gateId of every record two calls of one agent make with `gate`. */
  async function gateIdsOf(gate: Gate & { records: GateRecord[] }): Promise<(string | undefined)[]> {
    const agent = scriptedAgent(
      'a',
      [call('ls', { path: '/1' }, 'u1'), call('ls', { path: '/2' }, 'u2'), say('done')],
      {
        tools: [recordingTool('ls')],
      },
    );
    install(agent, { gate });
    await agent.invoke('go');
    return gate.records.map((r) => r.gateId);
  }

  function keepingGate(name: string): Gate & { records: GateRecord[] } {
    const records: GateRecord[] = [];
    return { name, records, decide: allow, record: (r) => void records.push(r) };
  }

  describe('when the gate declares no id', () => {
    it('keeps one per-process id across calls; another gate object gets another', async () => {
      const first = keepingGate('same-name');
      const second = keepingGate('same-name');
      const a = await gateIdsOf(first);
      const b = await gateIdsOf(second);
      expect(a).toHaveLength(2);
      // The form the reports show: `process:<8 hex digits of this process>:<n>`, n counting gates from 1.
      expect(a[0]).toMatch(/^process:[0-9a-f]{8}:[1-9][0-9]*$/);
      expect(a[1]).toBe(a[0]);
      expect(b).toEqual([b[0], b[0]]);
      expect(b[0]).toMatch(/^process:[0-9a-f]{8}:[1-9][0-9]*$/);
      // Names are not identities: two gates called the same get different ids, from the same process tag.
      expect(b[0]).not.toBe(a[0]);
      expect(b[0]?.split(':')[1]).toBe(a[0]?.split(':')[1]);
    });

    it('the audit shows it with its per-process id, marked as such', () => {
      const gate = allowAll();
      const graph = new Graph({ id: 'g', nodes: [scriptedAgent('n', [])], edges: [] });
      installMultiagent(graph, { gate });
      const shown = audit(graph).nodes.find((n) => n.id === 'n')?.gate;
      expect(shown).toEqual({
        name: 'allow-all',
        id: expect.stringMatching(/^process:[0-9a-f]{8}:[1-9][0-9]*$/) as string,
        perProcess: true,
      });
    });
  });

  describe('when the gate declares an id', () => {
    it('the declared id is the identity, in records and in the audit', async () => {
      const gate = { ...keepingGate('declared'), id: 'sha256:abc' };
      expect(await gateIdsOf(gate)).toEqual(['sha256:abc', 'sha256:abc']);
      const node = scriptedAgent('n', []);
      const graph = new Graph({ id: 'g', nodes: [node], edges: [] });
      installMultiagent(graph, { gate });
      const shown = audit(graph).nodes.find((n) => n.id === 'n')?.gate;
      expect(shown).toEqual({ name: 'declared', id: 'sha256:abc' });
    });
  });

  describe("when the gate's id, record or approval is unusable", () => {
    it('install refuses it, naming what is wrong, and gates nothing', () => {
      const bad: [unknown, string][] = [
        [{ name: 'bad-id', id: 42, decide: allow }, 'gate "bad-id" declares an id that is not a non-empty string'],
        [{ name: 'bad-id', id: '', decide: allow }, 'gate "bad-id" declares an id that is not a non-empty string'],
        [{ name: 'bad-record', decide: allow, record: 'log' }, 'gate "bad-record" has a record that is not a function'],
        [
          { name: 'bad-approval', decide: allow, approval: null },
          'gate "bad-approval" has an approval that is not an object',
        ],
      ];
      for (const [gate, why] of bad) {
        const agent = scriptedAgent('a', [say('hi')]);
        const graph = new Graph({ id: 'g', nodes: [scriptedAgent('n', [])], edges: [] });
        for (const attempt of [
          () => install(agent, { gate: gate as Gate }),
          () => installMultiagent(graph, { gate: gate as Gate }),
        ]) {
          let error: unknown;
          try {
            attempt();
          } catch (e) {
            error = e;
          }
          expect((error as GateAuditError).code).toBe('INVALID_ARGUMENT');
          expect((error as Error).message).toContain(`options.gate is not a usable Gate: ${why}`);
          expect((error as Error).message).toMatch(
            / \| give it a non-empty string id \(or none\), a record\(\) function \(or none\) and an approval object \(or none\)$/,
          );
        }
        expect(isGated(agent)).toBe(false);
        expect(audit(graph).nodes.find((n) => n.id === 'n')?.status).toBe('ungated');
      }
    });
  });

  describe('when the gate is no longer usable after install', () => {
    it('the audit reports the agent as blocked, not gated', () => {
      // A configured gate is resolved at each call: configureGate takes anything, and every call is then refused.
      const graph = new Graph({ id: 'g', nodes: [scriptedAgent('n', [])], edges: [] });
      configureGate(allowAll());
      installMultiagent(graph);
      configureGate({ name: 'bad-id', id: 42, decide: allow } as unknown as Gate);
      const node = audit(graph).nodes.find((n) => n.id === 'n');
      expect(node?.status).toBe('blocked');
      expect(node?.reason).toContain(
        'gate "bad-id" declares an id that is not a non-empty string: every call is refused',
      );
      // A gate object whose member changed after install is judged by what it holds now.
      const changing: Record<string, unknown> = { name: 'changing', decide: allow };
      const other = new Graph({ id: 'h', nodes: [scriptedAgent('m', [])], edges: [] });
      installMultiagent(other, { gate: changing as unknown as Gate });
      expect(audit(other).nodes.find((n) => n.id === 'm')?.status).toBe('gated');
      changing.record = 'log';
      expect(audit(other).nodes.find((n) => n.id === 'm')?.status).toBe('blocked');
    });
  });
});
