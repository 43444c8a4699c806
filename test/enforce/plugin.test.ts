import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { allowAll, configureGate, denyAll, GatePlugin, install, isGated, NoGateError } from '../../src/index.js';
import { toolCallHooks } from '../../src/walker/sdk-internals.js';
import { call, ran, recordingTool, say, scriptedAgent, toolResults } from '../helpers/sdk.js';

beforeEach(() => {
  ran.length = 0;
  vi.spyOn(console, 'error').mockImplementation(() => undefined);
});
afterEach(() => {
  configureGate(undefined);
  vi.restoreAllMocks();
});

describe('GatePlugin', () => {
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

  it('fails the run (never runs ungated) when it has no gate and none is configured', async () => {
    const agent = scriptedAgent('p', [call('ls'), say('done')], {
      tools: [recordingTool('ls')],
      plugins: [new GatePlugin()],
    });
    await expect(agent.invoke('go')).rejects.toBeInstanceOf(NoGateError);
    expect(ran).toEqual([]);
  });

  it('uses the configured gate when constructed without one', async () => {
    configureGate(denyAll('configured no'));
    const agent = scriptedAgent('p', [call('ls'), say('done')], {
      tools: [recordingTool('ls')],
      plugins: [new GatePlugin()],
    });
    await agent.invoke('go');
    expect(ran).toEqual([]);
  });
});
