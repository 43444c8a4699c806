/**
 * The audit reports a gate built with `allowWritableKeyring: true`: a note in the report (a module's and an
 * entry's), in every format, that does not fail the run; without the option, no note.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { root } from '../helpers/cli.js';
import { markedRuns } from '../helpers/marked-runs.js';

const generated = join(root, 'test/.generated/writable-keyring');
const { gateAudit, json } = markedRuns();
afterAll(() => rmSync(generated, { recursive: true, force: true }));

function write(name: string, text: string): string {
  mkdirSync(generated, { recursive: true });
  writeFileSync(join(generated, name), text);
  return `test/.generated/writable-keyring/${name}`;
}

/** A module exporting a gated agent whose gate asks approvers from a keyring, with or without the option. */
function app(name: string, allow: boolean, invoke = false): string {
  return write(
    name,
    [
      "import { Agent } from '@strands-agents/sdk';",
      "import { install, memoryApprovalStore, policyGate } from 'gate-audit';",
      `const gate = policyGate({ version: 1, rules: [{ id: 'ask', tools: ['*'], verdict: 'ask' }] }, { approvals: { store: memoryApprovalStore(), keyring: './keyring.json'${allow ? ', allowWritableKeyring: true' : ''} } });`,
      "export const agent = new Agent({ id: 'worker', printer: false });",
      'install(agent, { gate });',
      invoke ? "await agent.invoke('go').catch(() => undefined);" : '',
      '',
    ].join('\n'),
  );
}

describe('the audit and allowWritableKeyring', () => {
  describe('when a gate is built with or without allowWritableKeyring', () => {
    it("reports a module's gate built with allowWritableKeyring: true as a note, in every format, without failing the run", () => {
      const file = app('allowed.mjs', true);
      const { status, report } = json([file]);
      expect(status).toBe(0);
      expect(report.notes).toEqual([expect.objectContaining({ kind: 'writable-keyring', module: file })]);
      expect(report.notes?.[0]?.message).toMatch(
        /allowWritableKeyring: true for the keyring .*keyring\.json: a keyring the agent's user may rewrite is accepted/,
      );
      expect(report.notes?.[0]?.fails).toBeUndefined();
      for (const [format, pattern] of [
        ['text', /writable keyring: .*allowed\.mjs: builds a gate with allowWritableKeyring: true/],
        ['markdown', /writable keyring\\: .*allowed\\\.mjs\\: builds a gate with allowWritableKeyring\\: true/],
        ['sarif', /WritableKeyringAccepted/],
        ['junit', /name="writable-keyring"/],
      ] as const) {
        const run = gateAudit([file, '--format', format]);
        expect(run.status, `${format}: ${run.stderr}`).toBe(0);
        expect(run.stdout, format).toMatch(pattern);
      }
    });

    it('reports it for an entry too; a gate without the option gets no note', () => {
      const entry = app('entry.mjs', true, true);
      const ran = json(['--entry', entry, '--entry-settle', '500']);
      expect(ran.report.notes).toEqual([expect.objectContaining({ kind: 'writable-keyring', module: entry })]);
      const plain = json([app('plain.mjs', false)]);
      expect(plain.status).toBe(0);
      expect(plain.report.notes ?? []).toEqual([]);
    });
  });
});
