/**
 * No output of any command can be made to start a CI runner's workflow command (issue 37, items 8 and 11),
 * through the built command (`dist/`) in its own process: stdout, stderr and every report file, of the audit,
 * `merge`, `observed`, `verify-log`, `check-policy` and `approvals`, and what a loading module prints through
 * the CLI. Each output is read by the runner's rule (`../helpers/runner-commands.ts`); the `github` format's own
 * command lines are the one exemption.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gateAudit, type Run, scratchFolder } from '../helpers/built-command.js';
import { FORMAT_NAMES } from '../../src/report/render/index.js';
import { OBSERVED_FORMAT_NAMES } from '../../src/report/render/observed/index.js';
import { OWN_COMMAND, runnerCommands } from '../helpers/runner-commands.js';

const { scratch, at, rel } = scratchFolder('workflow-commands');

/** Expects no line a runner reads as a command in an output, but the `github` format's own ones. */
function expectNoCommand(output: string, what: string, github = false): void {
  if (!github) {
    expect(runnerCommands(output), `${what}: lines a runner reads as commands`).toEqual([]);
    return;
  }
  expect(output, what).not.toContain('##[');
  const lines = output.trimEnd().split('\n');
  expect(
    lines.filter((line) => !OWN_COMMAND.test(line)),
    `${what}: lines that are not the reporter's own`,
  ).toEqual([]);
  expect(runnerCommands(output)).toHaveLength(lines.length);
}

/** Expects neither stream of a run to hold a command line (stdout may be the `github` format's). */
function expectQuiet(run: Run, what: string, githubOut = false): void {
  expectNoCommand(run.stderr, `${what} (stderr)`);
  expectNoCommand(run.stdout, `${what} (stdout)`, githubOut);
}

const FROM = '../../../../fixtures';
// A node id that, printed raw, is an annotation, a stop of every later command, and one behind a Unicode space.
const HOSTILE_ID = 'writer\\n::error::forged\\n::stop-commands::tok\\n\\u3000::warning::x\\n##[error]y';

beforeAll(() => {
  rmSync(scratch, { recursive: true, force: true });
  mkdirSync(join(scratch, 'src'), { recursive: true });
  mkdirSync(join(scratch, 'named'), { recursive: true });
  mkdirSync(join(scratch, 'logs'), { recursive: true });
  writeFileSync(at('named/##[error]x.ts'), `export { graph } from "${FROM}/graphs/gated-app.js";\n`);
  writeFileSync(at('named/##[stop-commands]x.ts'), `export { graph } from "${FROM}/graphs/mixed-graph.js";\n`);
  writeFileSync(
    at('src/ids.ts'),
    [
      "import { Agent } from '@strands-agents/sdk';",
      "import { Graph } from '@strands-agents/sdk/multiagent';",
      "import { installMultiagent } from 'gate-audit';",
      `import { ScriptedModel, say } from '${FROM}/support/scripted-model.js';`,
      `import { shell } from '${FROM}/support/tools.js';`,
      `const writer = new Agent({ id: '${HOSTILE_ID}', model: new ScriptedModel([say('-')]), tools: [shell], printer: false });`,
      "export const graph = new Graph({ id: 'team', nodes: [writer], edges: [], maxSteps: 3 });",
      "installMultiagent(graph, { gate: { name: 'other-gate', decide: () => ({ verdict: 'allow' }) } });",
      '',
    ].join('\n'),
  );
  writeFileSync(
    at('src/throws.ts'),
    "throw new Error('db down\\r\\u001b[2K\\u2714 all 3 nodes gated\\n::error::forged\\n\\u3000::stop-commands::t\\n##[error]y');\n",
  );
  writeFileSync(
    at('src/noisy.ts'),
    [
      "console.log('from the module\\n::error::forged on stdout\\n##[error]x');",
      "console.error('\\u2003::stop-commands::tok');",
      "process.stderr.write(':');",
      "process.stderr.write(':error::split across writes\\n');",
      `export { graph } from "${FROM}/graphs/gated-app.js";`,
      '',
    ].join('\n'),
  );
  writeFileSync(at('logs/##[error].jsonl'), '{"not":"a record"}\n');
}, 60_000);
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

// Their folder: the names themselves are globs (`[error]` is a class of characters).
const HOSTILE_FILES = [rel('named')];
const FILE_FORMATS = FORMAT_NAMES.filter((f) => f !== 'text');

describe('commandOutput (the neutralized streams of every command)', () => {
  describe.concurrent('when the audit reads modules named like workflow commands', { timeout: 240_000 }, () => {
    it('writes no command line in any format, on stdout, on stderr or in a report file', async () => {
      const run = await gateAudit([
        ...HOSTILE_FILES,
        '--reporter',
        'text',
        ...FILE_FORMATS.flatMap((f) => ['--reporter', `${f}=${at(`out/##[error]report.${f}`)}`]),
      ]);
      expect(run.status).toBe(1);
      expectQuiet(run, 'audit');
      expect(run.stdout).toContain('##\\x5berror]x.ts');
      for (const format of FILE_FORMATS) {
        expectNoCommand(readFileSync(at(`out/##[error]report.${format}`), 'utf8'), format, format === 'github');
      }
      const github = await gateAudit([...HOSTILE_FILES, '--format', 'github']);
      expectQuiet(github, 'audit --format github', true);
      expect(github.stdout).toContain('##\\x5bstop-commands]x.ts');
    });

    it('merge writes none either, in any format', async () => {
      const json = await gateAudit([...HOSTILE_FILES, '--format', 'json', '--output-file', at('merge/##[error].json')]);
      expect(json.status).toBe(1);
      for (const format of FORMAT_NAMES) {
        const run = await gateAudit(['merge', at('merge/##[error].json'), '--format', format]);
        expect(run.status, format).toBe(1);
        expectQuiet(run, `merge --format ${format}`, format === 'github');
      }
    });

    it('--require-gate names node paths escaped: a path with newlines and ::error forges no line', async () => {
      const run = await gateAudit([rel('src/ids.ts'), '--require-gate', 'app-policy', '--format', 'github']);
      expect(run.status).toBe(1);
      expectQuiet(run, '--require-gate', true);
      expect(run.stderr).toMatch(
        /--require-gate "app-policy": 2 gated nodes not under that gate: "team", "team › writer\\n::error::forged/,
      );
    });

    it('a module whose error holds raw CR, ESC and command lines: shown escaped, on one line', async () => {
      for (const debug of [[], ['--debug']]) {
        const run = await gateAudit([...debug, rel('src/throws.ts')]);
        expect(run.status).toBe(2);
        expectQuiet(run, `load error ${debug.join(' ')}`);
        // eslint-disable-next-line no-control-regex
        expect(run.stderr).not.toMatch(/[\r\u001b]/);
        expect(run.stderr).toContain('db down\\r\\x1b[2K✔ all 3 nodes gated');
      }
    });

    it('what a loading module prints passes through with its command lines escaped', async () => {
      const run = await gateAudit([rel('src/noisy.ts')]);
      expect(run.status).toBe(0);
      expectQuiet(run, 'noisy module');
      expect(run.stderr).toContain('from the module');
      expect(run.stderr).toContain('split across writes');
    });
  });

  describe.concurrent('when the other commands read data named like workflow commands', { timeout: 240_000 }, () => {
    it('observed: every format and its messages', async () => {
      const value = (key: string, v: string) => ({ key, value: { stringValue: v } });
      const names = ['##[error]tool', '\u3000::error::x', 'ok\n::stop-commands::t'];
      const spans = names.map((name, i) => ({
        traceId: `${i.toString(16).padStart(2, '0')}${'ab'.repeat(15)}`,
        spanId: `${i.toString(16).padStart(2, '0')}${'cd'.repeat(7)}`,
        name: `execute_tool ${name}`,
        startTimeUnixNano: String(1_800_000_000_000_000_000n + BigInt(i)),
        attributes: [
          value('gen_ai.operation.name', 'execute_tool'),
          value('gen_ai.tool.name', name),
          value('gate_audit.agent_id', name),
        ],
      }));
      const line = JSON.stringify({
        resourceSpans: [
          { resource: { attributes: [value('host.name', names[0]!)] }, scopeSpans: [{ scope: { name: 'x' }, spans }] },
        ],
      });
      writeFileSync(at('##[error]traces.jsonl'), `${line}\n`);
      for (const format of OBSERVED_FORMAT_NAMES) {
        const run = await gateAudit([
          'observed',
          at('##[error]traces.jsonl'),
          '--format',
          format,
          '--reporter',
          `json=${at(`observed/##[error].${format}.json`)}`,
        ]);
        expect(run.status, format).toBe(1);
        expectQuiet(run, `observed --format ${format}`, format === 'github');
      }
    });

    it('verify-log: text and JSON, and a file it cannot read', async () => {
      for (const format of ['text', 'json']) {
        const run = await gateAudit(['verify-log', at('logs/##[error].jsonl'), '--format', format]);
        expect(run.status, format).toBe(1);
        expectQuiet(run, `verify-log --format ${format}`);
      }
      const missing = await gateAudit(['verify-log', at('logs/##[stop-commands]gone.jsonl')]);
      expect(missing.status).toBe(2);
      expectQuiet(missing, 'verify-log of a missing file');
      const store = await gateAudit(['verify-log', '--store', 'postgresql://u:p@127.0.0.1:1/%23%23[error]x']);
      expect(store.status).toBe(2);
      expectQuiet(store, 'verify-log --store');
    });

    it('check-policy: text, JSON and SARIF of a module named like a command', async () => {
      for (const format of ['text', 'json', 'sarif']) {
        const run = await gateAudit([
          'check-policy',
          'fixtures/policies/app-policy.yaml',
          rel('named/##[error]x.ts'),
          '--format',
          format,
        ]);
        expect(run.status, `${format}: ${run.stderr}`).toBe(0);
        expectQuiet(run, `check-policy --format ${format}`);
      }
    });

    it('approvals: an action named like a command', async () => {
      const run = await gateAudit(['approvals', '##[error]x', '--store', 'postgresql://127.0.0.1:1/x']);
      expect(run.status).toBe(2);
      expectQuiet(run, 'approvals');
      expect(run.stderr).toContain('##\\x5berror]x');
    });
  });
});
