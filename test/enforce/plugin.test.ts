/**
 * `GatePlugin` (`src/enforce/plugin.ts`): the construction-time way to gate an agent. Each test of the block
 * "GatePlugin (plugin.ts, line by line)" fails when the line it names is changed.
 *
 * Surviving mutants of plugin.ts (CONTRIBUTING.md, "Mutation testing"), each equivalent:
 * - the constructor's `options.gate === undefined` and the `timeoutMs` spread (→ the key always set): the mark
 *   then holds an undefined member, which `gatePluginGate` reads as absent.
 * - `initAgent`'s `agentGateState(agent) === 'gated'` (→ `false`, its literal): `installAgentGate` returns at once
 *   for a gated agent and `lockAgent` locks fields already locked; nothing runs either way.
 */
import { SequentialToolExecutor } from '@strands-agents/sdk';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  allowAll,
  configureGate,
  denyAll,
  type GateAuditError,
  GatePlugin,
  install,
  isGated,
  NoGateError,
  UngateableError,
} from '../../src/index.js';
import { setSdkCheckForTests } from '../../src/frameworks/strands/sdk-check.js';
import { setSdkVersionReader } from '../../src/frameworks/strands/sdk-version.js';
import { toolCallHooks } from '../../src/frameworks/strands/sdk-internals.js';
import { call, ran, recordingTool, say, scriptedAgent, toolResults } from '../helpers/sdk.js';

beforeEach(() => {
  ran.length = 0;
  vi.spyOn(console, 'error').mockImplementation(() => undefined);
});
afterEach(() => {
  configureGate(undefined);
  setSdkVersionReader();
  setSdkCheckForTests();
  vi.restoreAllMocks();
});

describe('GatePlugin', () => {
  describe('when constructed with a gate', () => {
    it("is the SDK plugin named 'gate-audit:gate'", () => {
      expect(new GatePlugin({ gate: allowAll() }).name).toBe('gate-audit:gate');
    });

    it('counts as a gate before the first run, and gates the agent when it initialises', async () => {
      const agent = scriptedAgent('p', [call('rm', { path: '/x' }), say('done')], {
        tools: [recordingTool('rm')],
        plugins: [new GatePlugin({ gate: denyAll('plugin says no') })],
      });
      expect(isGated(agent)).toBe(true);
      expect(toolCallHooks(agent)).toHaveLength(0);
      await agent.invoke('go');
      expect(ran).toEqual([]);
      expect(toolResults(agent)[0]).toMatch(/^error:\[gate\] BLOCKED: plugin says no/);
      expect(isGated(agent)).toBe(true);
    });

    it('is idempotent with install() of the same gate: install first, the plugin adds nothing at init', async () => {
      const gate = denyAll();
      const agent = scriptedAgent('p', [call('ls'), say('done')], {
        tools: [recordingTool('ls')],
        plugins: [new GatePlugin({ gate })],
      });
      const handle = install(agent, { gate });
      expect(handle.gateName).toBe('deny-all');
      await agent.invoke('go');
      const hooks = toolCallHooks(agent)?.length;
      await agent.invoke('again');
      expect(toolCallHooks(agent)?.length).toBe(hooks);
      expect(ran).toEqual([]);
    });

    it('refuses install() of another gate than its own (GateConflictError), changing nothing', () => {
      const agent = scriptedAgent('p', [say('done')], { plugins: [new GatePlugin({ gate: denyAll() })] });
      expect(() => install(agent, { gate: allowAll() })).toThrow(
        expect.objectContaining({
          code: 'GATE_CONFLICT',
          conflicts: [{ path: ['p'], existing: 'deny-all', requested: 'allow-all' }],
        }),
      );
      expect(toolCallHooks(agent)).toHaveLength(0);
    });
  });

  describe('when constructed without a gate', () => {
    it('fails the run (never runs ungated) when none is configured', async () => {
      const agent = scriptedAgent('p', [call('ls'), say('done')], {
        tools: [recordingTool('ls')],
        plugins: [new GatePlugin()],
      });
      await expect(agent.invoke('go')).rejects.toBeInstanceOf(NoGateError);
      expect(ran).toEqual([]);
    });

    it('uses the configured gate', async () => {
      configureGate(denyAll('configured no'));
      const agent = scriptedAgent('p', [call('ls'), say('done')], {
        tools: [recordingTool('ls')],
        plugins: [new GatePlugin()],
      });
      await agent.invoke('go');
      expect(ran).toEqual([]);
    });
  });
});

describe('GatePlugin (plugin.ts, line by line)', () => {
  describe('when it has no gate and none is configured', () => {
    it('its NoGateError names GatePlugin as what needed one', async () => {
      const agent = scriptedAgent('p', [call('ls'), say('done')], {
        tools: [recordingTool('ls')],
        plugins: [new GatePlugin()],
      });
      const error = await agent.invoke('go').then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(NoGateError);
      expect((error as Error).message).toMatch(/^subject=<GatePlugin> \| no gate given and none configured/);
      expect(ran).toEqual([]);
    });
  });

  describe('when requireTestedSdk is true and the SDK is untested', () => {
    it('the first run fails with SDK_UNTESTED and runs nothing', async () => {
      setSdkVersionReader(() => ({ version: '1.25.0', where: '(simulated by the test)' }));
      setSdkCheckForTests({ selfTest: () => ({ ok: true, checks: ['simulated'] }) });
      vi.spyOn(console, 'warn').mockImplementation(() => undefined);
      const strict = scriptedAgent('strict', [call('ls'), say('done')], {
        tools: [recordingTool('ls')],
        plugins: [new GatePlugin({ gate: allowAll(), requireTestedSdk: true })],
      });
      const error = await strict.invoke('go').then(
        () => undefined,
        (e: unknown) => e,
      );
      expect((error as GateAuditError).code).toBe('SDK_UNTESTED');
      expect(ran).toEqual([]);
      // Without it, the same SDK is self-tested (simulated: passes) and the agent runs gated.
      const lenient = scriptedAgent('lenient', [call('ls'), say('done')], {
        tools: [recordingTool('ls')],
        plugins: [new GatePlugin({ gate: allowAll() })],
      });
      await lenient.invoke('go');
      expect(ran).toEqual(['ls({})@lenient']);
    });
  });

  describe('when the agent has a tool executor gate-audit does not know', () => {
    it('its first run fails with UngateableError, running nothing', async () => {
      class FastExecutor extends SequentialToolExecutor {}
      const agent = scriptedAgent('custom', [call('ls'), say('done')], {
        tools: [recordingTool('ls')],
        plugins: [new GatePlugin({ gate: allowAll() })],
      });
      agent.toolExecutor = new FastExecutor();
      const error = await agent.invoke('go').then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(UngateableError);
      expect((error as UngateableError).findings.map((f) => `${f.path.join('/')}:${f.kind}`)).toEqual([
        'custom:tool-executor',
      ]);
      expect(ran).toEqual([]);
    });
  });

  describe('when an agent is given a plain copy of a GatePlugin', () => {
    it('the copy does not carry its mark: the agent is not counted as gated', () => {
      const plugin = new GatePlugin({ gate: denyAll() });
      // A copy keeps the plugin's name and options but not its initAgent: it would gate nothing.
      const copy = { ...plugin, initAgent: (): void => undefined };
      const agent = scriptedAgent('copied', [say('done')], { plugins: [copy] });
      expect(isGated(agent)).toBe(false);
      expect(isGated(scriptedAgent('real', [say('done')], { plugins: [plugin] }))).toBe(true);
    });
  });
});
