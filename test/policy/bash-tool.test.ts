/**
 * The SDK's real `bash` tool (`@strands-agents/sdk/vended-tools/bash`, one persistent bash per agent) under
 * each preset, driven by the scripted model. A marker file that each command would create proves whether
 * its body ran: a refused command never creates it, an allowed one does. Includes a first call that tries to
 * change what a second, allowed call runs.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Agent } from '@strands-agents/sdk';
import { bash } from '@strands-agents/sdk/vended-tools/bash';
import { afterAll, describe, expect, it } from 'vitest';
import { install, type PolicyInput, policyGate } from '../../src/index.js';
import { call, say, scriptedAgent, toolResults } from '../helpers/sdk.js';

const dir = mkdtempSync(join(tmpdir(), 'gate-audit-bash-'));
const agents: Agent[] = [];
afterAll(async () => {
  // Stop each agent's bash process.
  for (const agent of agents) await bash.invoke({ mode: 'restart' }, { agent } as never);
  rmSync(dir, { recursive: true, force: true });
});

const marker = (name: string): string => join(dir, name);

/** Runs the commands as successive bash calls of one agent under the policy; returns each call's result. */
async function run(policy: PolicyInput, commands: readonly string[]): Promise<string[]> {
  const agent = scriptedAgent(
    `bash-user-${agents.length}`,
    [...commands.map((command) => call('bash', { mode: 'execute', command })), say('done')],
    { tools: [bash] },
  );
  agents.push(agent);
  install(agent, { gate: policyGate(policy) });
  await agent.invoke('go');
  return toolResults(agent);
}

const vendedTools: PolicyInput = { version: 1, extends: ['gate-audit:vended-tools'], default: 'allow' };
const readOnly: PolicyInput = { version: 1, extends: ['gate-audit:read-only-shell'] };
const allowAll: PolicyInput = { version: 1, default: 'allow' };

describe('the SDK bash tool under gate-audit:vended-tools', () => {
  it('never runs a line with a denied part, and runs an allowed one', async () => {
    const results = await run(vendedTools, [
      `touch ${marker('vt-denied')} && git reset --hard`,
      `touch ${marker('vt-wrapped')}; sudo -n true || bash -c 'rm -rf /nonexistent-root-dir'`,
      `touch ${marker('vt-allowed')}`,
    ]);
    expect(existsSync(marker('vt-denied'))).toBe(false);
    expect(existsSync(marker('vt-wrapped'))).toBe(false);
    expect(existsSync(marker('vt-allowed'))).toBe(true);
    expect(results[0]).toMatch(/^error:\[gate\] BLOCKED: git reset --hard throws away uncommitted work/);
    expect(results[1]).toMatch(/^error:\[gate\] BLOCKED: recursive delete of an absolute path/);
  });

  it('asks (and, with no approval path, refuses) a first call that would change what a later call runs', async () => {
    const results = await run(vendedTools, [`hash -p /usr/bin/touch ls`, `ls ${marker('vt-hash')}`]);
    expect(results[0]).toMatch(/^error:\[gate\] BLOCKED: approval required/);
    expect(existsSync(marker('vt-hash'))).toBe(false);
  });
});

describe('the SDK bash tool under gate-audit:read-only-shell', () => {
  it('runs reading commands and refuses the rest', async () => {
    const results = await run(readOnly, [
      `ls ${dir}`,
      `touch ${marker('ro-touch')}`,
      `ls ${dir} && touch ${marker('ro-joined')}`,
    ]);
    expect(results[0]).toMatch(/^success:/);
    expect(existsSync(marker('ro-touch'))).toBe(false);
    expect(existsSync(marker('ro-joined'))).toBe(false);
    expect(results[1]).toMatch(/^error:\[gate\] BLOCKED: approval required/);
  });

  it('refuses a first call that defines a function named ls, so the allowed ls that follows is the real one', async () => {
    await run(readOnly, [`ls() { touch ${marker('ro-function')}; }`, `ls ${dir}`]);
    expect(existsSync(marker('ro-function'))).toBe(false);
  });
});

describe('the same two calls without the preset (the attack is real)', () => {
  it('lets the first call point ls at touch, and the second call then runs touch', async () => {
    await run(allowAll, [`hash -p /usr/bin/touch ls`, `ls ${marker('open-hash')}`]);
    expect(existsSync(marker('open-hash'))).toBe(true);
  });
});
