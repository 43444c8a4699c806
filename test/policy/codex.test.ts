/**
 * A peer's suite: OpenAI Codex judges commands the same two ways (`is_safe_command.rs`: every command of a
 * `bash -lc` script known safe; `is_dangerous_command.rs`: any dangerous part). Its cases, written as
 * gate-audit policies (`fixtures/policies/codex-*.yaml`), get Codex's answer, except where gate-audit
 * disagrees on purpose; each disagreement says why (the README lists them). Codex's cases are plain words
 * only: a floor, not the corpus.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type Decision, loadPolicy, policyGate, type ToolCallRequest } from '../../src/index.js';
import { root } from '../helpers/cli.js';

const safe = policyGate(loadPolicy(join(root, 'fixtures/policies/codex-safe.yaml')));
const dangerous = policyGate(loadPolicy(join(root, 'fixtures/policies/codex-dangerous.yaml')));
const readOnly = policyGate({ version: 1, extends: ['gate-audit:read-only-shell'] });

/** Codex takes argv; the bash tool takes a line: argv joined with each word single-quoted when needed. */
function line(argv: readonly string[]): string {
  return argv.map((w) => (/^[\w@%+=:,./-]+$/.test(w) ? w : `'${w.replaceAll("'", `'"'"'`)}'`)).join(' ');
}

function verdict(gate: typeof safe, argv: readonly string[]): string {
  const request: ToolCallRequest = {
    toolUseId: 't',
    toolName: 'bash',
    input: { mode: 'execute', command: line(argv) },
    agentId: 'a',
    agentName: 'a',
    path: ['a'],
    paths: [['a']],
    toolKind: 'function',
  };
  return (gate.decide(request) as Decision).verdict;
}

/** [argv, Codex says safe, why gate-audit disagrees (when it does)]. */
const SAFE_CASES: [string[], boolean, string?][] = [
  [['ls'], true],
  [['git', 'status'], true],
  [['sed', '-n', '1,5p', 'file.txt'], true],
  [['nl', '-nrz', 'Cargo.toml'], true],
  [['find', '.', '-name', 'file.txt'], true],
  [['foo'], false],
  [['git', 'fetch'], false],
  [['sed', '-n', 'xp', 'file.txt'], false],
  [['find', '.', '-name', 'file.txt', '-exec', 'rm', '{}', ';'], false],
  [['find', '.', '-name', '*.py', '-execdir', 'python3', '{}', ';'], false],
  [['find', '.', '-name', 'file.txt', '-ok', 'rm', '{}', ';'], false],
  [['find', '.', '-name', '*.py', '-okdir', 'python3', '{}', ';'], false],
  [['find', '.', '-delete', '-name', 'file.txt'], false],
  [['find', '.', '-fls', '/etc/passwd'], false],
  [['find', '.', '-fprint', '/etc/passwd'], false],
  [['find', '.', '-fprint0', '/etc/passwd'], false],
  [['find', '.', '-fprintf', '/root/suid.txt', '%#m %u %p\n'], false],
  [['rg', 'Cargo.toml', '-n'], true],
  [['rg', 'foo'], true],
  [['rg', '--context', '1', '--heading', 'foo'], true],
  [['rg', '--search-zip', 'files'], false],
  [['rg', '-z', 'files'], false],
  [['rg', '--pre', 'pwned', 'files'], false],
  [['rg', '--pre=pwned', 'files'], false],
  [['rg', '--hostname-bin', 'pwned', 'files'], false],
  [['rg', '--hostname-bin=pwned', 'files'], false],
  [['bash', '-lc', 'ls'], true],
  [['bash', '-lc', 'ls -1'], true],
  [['bash', '-lc', 'git status'], true],
  [['bash', '-lc', 'grep -R "Cargo.toml" -n'], true],
  [['bash', '-lc', 'sed -n 1,5p file.txt'], true],
  [['bash', '-lc', "sed -n '1,5p' file.txt"], true],
  [['bash', '-lc', 'find . -name file.txt'], true],
  [['bash', '-lc', 'grep -R "Cargo.toml" -n || true'], true],
  [['bash', '-lc', 'ls && pwd'], true],
  [['bash', '-lc', "echo 'hi' ; ls"], true],
  [['bash', '-lc', 'ls | wc -l'], true],
  [['bash', '-lc', 'ls && git status'], true],
  [['bash', '-lc', 'ls | head'], true],
  [['bash', '-lc', 'ls ; git status'], true],
  [
    ['bash', '-lc', 'ls && git status || head'],
    true,
    "a head that is not fed by a pipe reads the SDK bash tool's own input, and may take part of the line the tool writes after each call: opaque",
  ],
  [['bash', '-lc', 'ls && git status | head'], true],
  [['bash', '-lc', 'git', 'status'], false],
  [['bash', '-lc', "'git status'"], false],
  [['bash', '-lc', 'find . -name file.txt -delete'], false],
  [['bash', '-lc', 'ls && rm -rf /'], false],
  [['bash', '-lc', 'ls && rm foo'], false],
  [['bash', '-lc', 'ls | rm foo'], false],
  [['bash', '-lc', 'ls ; rm foo'], false],
  [
    ['bash', '-lc', '(ls)'],
    false,
    'a subshell of safe commands runs only safe commands: gate-audit judges its parts; Codex refuses any parenthesis its word-only parser cannot read',
  ],
  [['bash', '-lc', 'ls || (pwd && echo hi)'], false, 'the same: every part is safe, so gate-audit allows it'],
  [['bash', '-lc', 'ls > out.txt'], false],
  [['cargo', 'check'], true],
  [
    ['cd', '/'],
    true,
    'the SDK bash tool keeps one shell across calls, so cd changes what every later call runs: an opaque part, never allowed',
  ],
];

/** [argv, Codex says dangerous, why gate-audit disagrees]. */
const DANGEROUS_CASES: [string[], boolean, string?][] = [
  [['git', 'reset'], true],
  [['bash', '-lc', 'git reset --hard'], true],
  [['git', 'status'], false],
  [['bash', '-lc', 'git status'], false],
  [['sudo', 'git', 'reset', '--hard'], true],
  [['/usr/bin/git', 'reset', '--hard'], true],
  [['rm', '-rf', '/'], true],
  [['rm', '-f', '/'], true],
  [
    ['rm', '-fr', '/'],
    false,
    'Codex compares the first argument with "-f" and "-rf" literally; gate-audit splits flags, so -fr is -f -r',
  ],
  [['rm', '/', '-f'], false, 'the same: GNU rm reads options after operands, so -f still applies'],
  [['env', 'git', 'reset'], false, 'Codex looks through sudo only; gate-audit looks through every wrapper'],
  [['bash', '-lc', 'sudo rm -rf /'], true],
];

describe('the Codex comparison', () => {
  it.each(SAFE_CASES)('is_safe_command %j (Codex: %s)', (argv, codexSafe, disagreement) => {
    const ours = verdict(safe, argv) === 'allow';
    expect(ours).toBe(disagreement === undefined ? codexSafe : !codexSafe);
  });

  it.each(DANGEROUS_CASES)('is_dangerous_command %j (Codex: %s)', (argv, codexDangerous, disagreement) => {
    const ours = verdict(dangerous, argv) === 'deny';
    expect(ours).toBe(disagreement === undefined ? codexDangerous : !codexDangerous);
  });

  it('read-only-shell disagrees with Codex on uniq in out: it writes out', () => {
    // Newer Codex versions count `uniq` safe whatever its operands; the second operand is an output file.
    expect(verdict(readOnly, ['uniq', 'in', 'out'])).toBe('ask');
    expect(verdict(readOnly, ['bash', '-lc', 'ls && rm -rf /'])).toBe('ask');
  });
});
