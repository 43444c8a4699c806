import { createHash } from 'node:crypto';
import { closeSync, existsSync, linkSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, type MockInstance, vi } from 'vitest';
import { main } from '../../src/cli/main.js';
import {
  allowAll,
  type Gate,
  GateFailedError,
  install,
  installMultiagent,
  openDecisionLog,
  type PolicyInput,
  policyGate,
} from '../../src/index.js';
import { inputDigest } from '../../src/policy/approval.js';
import { verifyLog } from '../../src/policy/verify-log.js';
import { call, ran, recordingTool, say, scriptedAgent, toolResults } from '../helpers/sdk.js';
import { AgentNode, Graph } from '@strands-agents/sdk/multiagent';

const scratch = join(dirname(fileURLToPath(import.meta.url)), '../.generated/decision-log');
beforeAll(() => mkdirSync(scratch, { recursive: true }));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const policy: PolicyInput = {
  version: 1,
  rules: [
    { id: 'ls-ok', tools: ['ls'], verdict: 'allow' },
    { id: 'no-rm', tools: ['rm'], verdict: 'deny', reason: 'rm is not allowed' },
  ],
};

let file = '';
let counter = 0;
let errors: MockInstance<typeof console.error>;
beforeEach(() => {
  ran.length = 0;
  file = join(scratch, `log-${counter++}.jsonl`);
  errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
});
afterEach(() => errors.mockRestore());

function records(path = file): Record<string, unknown>[] {
  return readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

async function runLsThenRm(gate: Gate) {
  const agent = scriptedAgent('a', [call('ls', { path: '/secret-path' }), call('rm', { path: '/x' }), say('done')], {
    tools: [recordingTool('ls'), recordingTool('rm')],
  });
  install(agent, { gate });
  // A run stopped by a failing log ends with GateFailedError; nothing else may escape.
  await agent.invoke('go').catch((error: unknown) => {
    if (!(error instanceof GateFailedError)) throw error;
  });
  return agent;
}

async function verifyCli(path: string): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(['verify-log', path], {
    stdout: { write: (s: string) => (out += s) },
    stderr: { write: (s: string) => (err += s) },
  });
  return { code, out, err };
}

describe('the decision log (policyGate { log })', () => {
  describe('when a gate logs its decisions to a file', () => {
    it('writes one JSON line per decision with the fields that matter, and a digest instead of the input', async () => {
      await runLsThenRm(policyGate(policy, { name: 'p', log: { destination: file } }));
      const [allow, deny] = records();
      expect(allow).toMatchObject({
        level: 'info',
        seq: 0,
        prev: null,
        gate: 'p',
        event: 'allow',
        verdict: 'allow',
        rule: 'ls-ok',
        toolName: 'ls',
        agentId: 'a',
        // An agent gated on its own has no known place: the record says so instead of making one up.
        path: '',
        paths: [],
        inputSha256: inputDigest({ path: '/secret-path' }),
      });
      expect(typeof allow?.time).toBe('string');
      expect(typeof allow?.toolUseId).toBe('string');
      expect(typeof allow?.durationMs).toBe('number');
      expect(deny).toMatchObject({
        seq: 1,
        event: 'deny',
        verdict: 'deny',
        rule: 'no-rm',
        reason: 'rm is not allowed',
      });
      expect(deny?.prev).toBe(allow?.hash);
      expect(readFileSync(file, 'utf8')).not.toContain('/secret-path');
    });

    it('writes the raw input only when asked', async () => {
      await runLsThenRm(policyGate(policy, { log: { destination: file, includeInput: true } }));
      expect(records()[0]?.input).toEqual({ path: '/secret-path' });
    });

    it('continues the chain of an existing file, and verify-log accepts it', async () => {
      await runLsThenRm(policyGate(policy, { log: { destination: file } }));
      await runLsThenRm(policyGate(policy, { log: { destination: file } }));
      expect(records().map((r) => r.seq)).toEqual([0, 1, 2, 3]);
      expect(verifyLog(readFileSync(file, 'utf8'))).toMatchObject({ ok: true, records: 4 });
      const result = await verifyCli(file);
      expect(result.code).toBe(0);
      expect(result.out).toMatch(/OK, 4 records, chain intact, last hash [0-9a-f]{64}\n$/);
    });
  });
  describe('when one file is opened by several gates, handles or descriptors (one writer per file in a process)', () => {
    /** Two agents, one per gate, calling in turns: ls on the first gate, ls on the second, rm on each. */
    async function interleave(first: Gate, second: Gate): Promise<void> {
      const a = scriptedAgent('a', [call('ls', { path: '/a' }), call('rm', { path: '/a' }), say('done')], {
        tools: [recordingTool('ls'), recordingTool('rm')],
      });
      const b = scriptedAgent('b', [call('ls', { path: '/b' }), call('rm', { path: '/b' }), say('done')], {
        tools: [recordingTool('ls'), recordingTool('rm')],
      });
      install(a, { gate: first });
      install(b, { gate: second });
      await Promise.all([a.invoke('go'), b.invoke('go')]);
    }

    it('shares one chain between two gates logging to the same path', async () => {
      await interleave(
        policyGate(policy, { name: 'first', log: { destination: file } }),
        policyGate(policy, { name: 'second', log: { destination: file } }),
      );
      const written = records();
      expect(written.map((r) => r.seq)).toEqual([0, 1, 2, 3]);
      expect(new Set(written.map((r) => r.gate))).toEqual(new Set(['first', 'second']));
      expect(verifyLog(readFileSync(file, 'utf8'))).toMatchObject({ ok: true, records: 4 });
    });

    it('shares it through a hard link and a descriptor too (the file, not its name, is the key)', async () => {
      const link = `${file}.link`;
      writeFileSync(file, '');
      linkSync(file, link);
      const fd = openSync(file, 'a+');
      try {
        await interleave(
          policyGate(policy, { name: 'by-path', log: { destination: file } }),
          policyGate(policy, { name: 'by-link', log: { destination: link } }),
        );
        await runLsThenRm(policyGate(policy, { name: 'by-fd', log: { destination: fd } }));
      } finally {
        closeSync(fd);
      }
      expect(records().map((r) => r.seq)).toEqual([0, 1, 2, 3, 4, 5]);
      expect(records().map((r) => r.gate)).toContain('by-link');
      expect(verifyLog(readFileSync(file, 'utf8'))).toMatchObject({ ok: true, records: 6 });
      // Only the first open took a lock, under the name it was opened with.
      expect(existsSync(`${file}.lock`)).toBe(true);
      expect(existsSync(`${link}.lock`)).toBe(false);
    });

    it('continues the chain of a file given as a readable descriptor; a write-only one is refused', async () => {
      await runLsThenRm(policyGate(policy, { log: { destination: file } }));
      // Same file, same process: a descriptor shares the writer the path opened.
      const readable = openSync(file, 'a+');
      try {
        await runLsThenRm(policyGate(policy, { log: { destination: readable } }));
        expect(records().map((r) => r.seq)).toEqual([0, 1, 2, 3]);
      } finally {
        closeSync(readable);
      }
      // A copy no writer of this process has open: a descriptor of it must be readable to continue its chain.
      const other = join(scratch, `fd-${counter++}.jsonl`);
      writeFileSync(other, readFileSync(file));
      const alone = openSync(other, 'a');
      try {
        expect(() => openDecisionLog({ destination: alone })).toThrow(
          /cannot read the decision log to continue its chain: .*EBADF.* \| pass its path, or a descriptor opened for reading too \('a\+'\)/,
        );
      } finally {
        closeSync(alone);
      }
      const readableAlone = openSync(other, 'a+');
      try {
        const log = openDecisionLog({ destination: readableAlone });
        log.append({ event: 'allow', verdict: 'allow', path: [] }, 'fd');
        log.close();
      } finally {
        closeSync(readableAlone);
      }
      expect(records(other).map((r) => r.seq)).toEqual([0, 1, 2, 3, 4]);
      expect(existsSync(`${other}.lock`)).toBe(false);
    });

    it('continues a chain whose last record is longer than a read chunk (multi-byte characters across chunks)', () => {
      const first = openDecisionLog(file);
      first.append({ event: 'deny', verdict: 'deny', reason: 'é€😀'.repeat(30_000), path: [] }, 'g');
      first.append({ event: 'deny', verdict: 'deny', reason: '€'.repeat(50_001), path: [] }, 'g');
      first.close();
      const second = openDecisionLog(file);
      second.append({ event: 'allow', verdict: 'allow', path: [] }, 'g');
      second.close();
      expect(records().map((r) => r.seq)).toEqual([0, 1, 2]);
      expect(verifyLog(readFileSync(file, 'utf8'))).toMatchObject({ ok: true, records: 3 });
    });

    it('continues after the last record however many blank lines follow it, across a read chunk too', () => {
      const first = openDecisionLog(file);
      first.append({ event: 'deny', verdict: 'deny', reason: 'x'.repeat(70_000), path: [] }, 'g');
      first.close();
      const head = records()[0]!;
      // Blank lines after the last record, enough of them to fill more than one read chunk.
      writeFileSync(file, `${readFileSync(file, 'utf8')}${'\n'.repeat(70_000)}`);
      const second = openDecisionLog(file);
      second.append({ event: 'allow', verdict: 'allow', path: [] }, 'g');
      second.close();
      const lines = readFileSync(file, 'utf8').split('\n');
      const written = lines.filter((l) => l !== '').map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(written).toHaveLength(2);
      expect(written[1]).toMatchObject({ seq: 1, prev: head.hash });
      // A file of blank lines only starts a new chain.
      writeFileSync(file, '\n\n\n');
      const fresh = openDecisionLog(file);
      fresh.append({ event: 'allow', verdict: 'allow', path: [] }, 'g');
      fresh.close();
      expect(records()).toMatchObject([{ seq: 0, prev: null }]);
    });

    it('refuses to continue a file whose last record is not chained, naming the fix', () => {
      const lines = [
        'not json',
        '{"seq":-1,"hash":"ab"}',
        '{"seq":1.5,"hash":"ab"}',
        '{"seq":"1","hash":"ab"}',
        '{"seq":1}',
        '{"seq":1,"hash":7}',
        '{"hash":"ab"}',
      ];
      for (const line of lines) {
        writeFileSync(file, `{"seq":0,"hash":"aa"}\n${line}\n`);
        expect(() => openDecisionLog(file), line).toThrow(
          `file=<${file}> | the decision log's last record is not a chained record, so the chain cannot continue | ` +
            'check it with gate-audit verify-log, then move it away or pass { chain: false }',
        );
        expect(existsSync(`${file}.lock`), line).toBe(false);
      }
      // The same last line, with { chain: false }: nothing is continued, the log opens.
      openDecisionLog({ destination: file, chain: false }).close();
      writeFileSync(file, '{"seq":0,"hash":"aa"}\n');
      const log = openDecisionLog(file);
      log.append({ event: 'allow', verdict: 'allow', path: [] }, 'g');
      log.close();
      expect(records()[1]).toMatchObject({ seq: 1, prev: 'aa' });
    });

    it('takes a file path, a whole descriptor or { write(line) }, and refuses anything else', () => {
      for (const destination of [1.5, -0.5, {}, null, { write: 'no' }, true]) {
        expect(() => openDecisionLog({ destination } as never), JSON.stringify(destination)).toThrow(
          'option=<log.destination> | expected a file path, a descriptor or { write(line) }',
        );
      }
      const lines: string[] = [];
      const stream = openDecisionLog({ destination: { write: (line: string) => void lines.push(line) } });
      stream.append({ event: 'allow', verdict: 'allow', path: [] }, 'g');
      stream.close();
      expect(lines).toHaveLength(1);
      expect(JSON.parse(lines[0]!)).toMatchObject({ seq: 0, event: 'allow' });
    });

    it('refuses a second open of the same file with the other chain setting', () => {
      const log = openDecisionLog(file);
      try {
        expect(() => openDecisionLog({ destination: file, chain: false })).toThrow(
          /already writes this decision log with a chain \| open it with the same chain option/,
        );
      } finally {
        log.close();
      }
    });

    it('holds <log>.lock with its pid until the last handle closes', () => {
      const first = openDecisionLog(file);
      const second = openDecisionLog({ destination: file });
      expect(readFileSync(`${file}.lock`, 'utf8')).toBe(`${process.pid}\n`);
      first.close();
      first.close();
      expect(existsSync(`${file}.lock`)).toBe(true);
      second.append({ event: 'allow', verdict: 'allow', toolName: 'ls', path: [] }, 'g');
      second.close();
      expect(existsSync(`${file}.lock`)).toBe(false);
      // Reopened: the chain goes on from the file's last record.
      const third = openDecisionLog(file);
      third.append({ event: 'deny', verdict: 'deny', reason: 'no', toolName: 'rm', path: [] }, 'g');
      third.close();
      expect(records().map((r) => r.seq)).toEqual([0, 1]);
      expect(verifyLog(readFileSync(file, 'utf8'))).toMatchObject({ ok: true, records: 2 });
    });

    it('refuses the call and stops the run once the log a gate writes to is closed', async () => {
      const log = openDecisionLog(file);
      const gate = policyGate(policy, { log });
      log.close();
      const agent = await runLsThenRm(gate);
      expect(ran).toEqual([]);
      expect(toolResults(agent)[0]).toMatch(/could not record the decision: the decision log is closed/);
    });

    it('refuses a record it cannot serialise without writing anything, and keeps the chain', () => {
      const log = openDecisionLog({ destination: file, includeInput: true });
      try {
        expect(() => log.append({ event: 'allow', verdict: 'allow', path: [], input: { n: 1n } }, 'g')).toThrow(
          /cannot write this record/,
        );
        log.append({ event: 'allow', verdict: 'allow', path: [] }, 'g');
      } finally {
        log.close();
      }
      expect(records().map((r) => r.seq)).toEqual([0]);
    });
  });

  describe('when the file is tampered with (gate-audit verify-log)', () => {
    async function logOfFour(): Promise<string[]> {
      await runLsThenRm(policyGate(policy, { log: { destination: file } }));
      await runLsThenRm(policyGate(policy, { log: { destination: file } }));
      return readFileSync(file, 'utf8').trim().split('\n');
    }

    const tamperings: [string, (lines: string[]) => string[], RegExp][] = [
      [
        'a changed verdict',
        (l) => l.map((x, i) => (i === 1 ? x.replace('"verdict":"deny"', '"verdict":"allow"') : x)),
        /BROKEN at line 2: the record was changed/,
      ],
      [
        'a changed last record',
        (l) => l.map((x, i) => (i === 3 ? x.replace('"rule":"no-rm"', '"rule":"ls-ok"') : x)),
        /BROKEN at line 4: the record was changed/,
      ],
      [
        'a removed record',
        (l) => l.filter((_, i) => i !== 1),
        /BROKEN at line 2: the record has seq 2, expected 1: 1 record\(s\) missing/,
      ],
      ['a removed first record', (l) => l.slice(1), /BROKEN at line 1: the record has seq 1, expected 0/],
      ['a repeated record', (l) => [l[0]!, l[1]!, l[1]!, l[2]!, l[3]!], /BROKEN at line 3: .*inserted or repeated/],
      [
        'a record rewritten with its own hash recomputed',
        (l) => {
          const record = JSON.parse(l[1]!) as Record<string, unknown>;
          record.prev = '0'.repeat(64);
          delete record.hash;
          const body = JSON.stringify(record);
          const hash = inputDigestOfLine(body);
          return [l[0]!, `${body.slice(0, -1)},"hash":"${hash}"}`, l[2]!, l[3]!];
        },
        /BROKEN at line 2: the record does not chain to line 1/,
      ],
      [
        'a line that is not JSON',
        (l) => [l[0]!, 'garbage', ...l.slice(2)],
        /BROKEN at line 2: the record is not a JSON record/,
      ],
    ];
    for (const [name, tamper, expected] of tamperings) {
      it(`reports ${name} and exits 1`, async () => {
        writeFileSync(file, `${tamper(await logOfFour()).join('\n')}\n`);
        const result = await verifyCli(file);
        expect(result.out).toMatch(expected);
        expect(result.code).toBe(1);
      });
    }

    it('exits 2 when the file cannot be read', async () => {
      const result = await verifyCli(join(scratch, 'absent.log'));
      expect(result.code).toBe(2);
      expect(result.err).toMatch(/cannot read ".*absent\.log" \(ENOENT\)/);
    });
  });

  describe('when the destination fails (it fails closed)', () => {
    it('refuses the call and stops the run when the file system refuses the write (/dev/full)', async () => {
      const agent = await runLsThenRm(policyGate(policy, { log: { destination: '/dev/full', chain: false } }));
      expect(ran).toEqual([]);
      expect(toolResults(agent)[0]).toMatch(
        /^error:\[gate\] ERROR: gate "policy" could not record the decision: .*ENOSPC/,
      );
      expect(toolResults(agent)).toHaveLength(1);
      expect((agent as unknown as { model: { calls: number } }).model.calls).toBe(1);
      // A device takes no lockfile.
      expect(existsSync('/dev/full.lock')).toBe(false);
    });

    it('refuses every later call once the destination failed, even if it recovers', async () => {
      let fail = true;
      const lines: string[] = [];
      const gate = policyGate(policy, {
        log: {
          destination: {
            write: (line: string) => {
              if (fail) throw new Error('collector unreachable');
              lines.push(line);
            },
          },
        },
      });
      await runLsThenRm(gate);
      fail = false;
      const agent = await runLsThenRm(gate);
      expect(ran).toEqual([]);
      expect(lines).toEqual([]);
      expect(toolResults(agent)[0]).toMatch(/the decision log failed earlier: collector unreachable/);
    });

    it('refuses to continue a file whose last record is not chained', () => {
      writeFileSync(file, 'not a record\n');
      expect(() => policyGate(policy, { log: { destination: file } })).toThrow(/last record is not a chained record/);
    });

    it('refuses a destination that cannot be opened', () => {
      expect(() => policyGate(policy, { log: { destination: join(scratch, 'no/such/dir/x.log') } })).toThrow(
        /cannot open the decision log/,
      );
    });
  });

  describe('when a guard stops a node or sees tampering', () => {
    it('records a node cancelled by the node guard', async () => {
      const lines: string[] = [];
      const gate = policyGate(
        { version: 1, default: 'allow' },
        { log: { destination: { write: (l: string) => lines.push(l) } } },
      );
      const graph = new Graph({
        id: 'g',
        nodes: [scriptedAgent('c', [say('c')]), scriptedAgent('d', [say('d')])],
        edges: [['c', 'd']],
        maxSteps: 5,
      });
      installMultiagent(graph, { gate });
      (graph.nodes as Map<string, unknown>).set('d', new AgentNode({ agent: scriptedAgent('d', [say('ungated')]) }));
      await graph.invoke('go');
      const events = lines.map(
        (l) => JSON.parse(l) as { event: string; nodeId?: string; path: string; reason: string },
      );
      expect(events).toEqual([
        expect.objectContaining({ event: 'node-cancelled', verdict: 'deny', nodeId: 'd', path: 'g' }),
      ]);
      expect(events[0]?.reason).toMatch(/UNGATED NODE: node "d"/);
    });

    it('records tampering seen at execution', async () => {
      const lines: string[] = [];
      const gate = { ...allowAll(), record: (r: { event: string }) => void lines.push(r.event) };
      const agent = scriptedAgent('a', [call('ls', { path: '/tmp' }), say('done')], { tools: [recordingTool('ls')] });
      install(agent, { gate });
      const { BeforeToolCallEvent } = await import('@strands-agents/sdk');
      agent.addHook(BeforeToolCallEvent, (e) => {
        (e.toolUse.input as { path: string }).path = '/etc';
      });
      await expect(agent.invoke('go')).rejects.toBeInstanceOf(GateFailedError);
      expect(ran).toEqual([]);
      expect(lines).toEqual(['allow', 'tampering']);
    });
  });
});

function inputDigestOfLine(line: string): string {
  // The hash of a line is the SHA-256 of its text (same as verifyLog computes).
  return createHashHex(line);
}

function createHashHex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
