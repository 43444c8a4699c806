/**
 * The policy subcommands: `gate-audit check-policy <policy> [module...]` validates a policy and shows what
 * it says about every agent's tools before anything runs; `gate-audit verify-log <file>` checks a chained decision log.
 */
import { resolve, sep } from 'node:path';
import { InvalidArgumentError } from 'commander';
import { isAuditing } from '../../auditing.js';
import { GateAuditError, PolicyError } from '../../errors.js';
import { joinPath } from '../../tree-paths.js';
import type { AgentVerdicts, CheckProblem } from '../../policy/check-policy.js';
import { requireStrandsSdk } from '../../frameworks/strands/sdk-required.js';
import type { CompiledPolicy, StaticVerdict } from '../../policy/compile.js';
import { parseKeyArgument } from '../../policy/decision-log-signing.js';
import { type LogLineBreak, type LogVerification, parseLastHash, verifyLogFile } from '../../policy/verify-log.js';
import { loadCompiledPolicy } from '../../policy/load.js';
import { policyId } from '../../policy/policy-gate.js';
import { jsonVisible, neutralizeCommands, quoted, visible } from '../../escape.js';
import { subcommand } from '../command-output.js';

/** Where a subcommand writes. */
export interface Streams {
  readonly stdout: { write(chunk: string): unknown };
  readonly stderr: { write(chunk: string): unknown };
}

function msArg(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0)
    throw new InvalidArgumentError('expected a positive whole number of milliseconds');
  return n;
}

function describe(verdict: StaticVerdict): string {
  if (verdict.verdict !== 'depends') {
    return verdict.rule === 'default' ? 'default: no rule covers it' : `rule ${visible(verdict.rule)}`;
  }
  const conditional = verdict.conditional.map((c) => `${c.verdict} if ${visible(c.rule)} matches`).join(', ');
  const otherwise =
    verdict.rule === 'default'
      ? `${verdict.otherwise ?? '?'} (default)`
      : `${verdict.otherwise ?? '?'} (${visible(verdict.rule)})`;
  return `${conditional}, else ${otherwise}`;
}

const CHECK_FORMATS = ['text', 'json', 'sarif'] as const;
type CheckFormat = (typeof CHECK_FORMATS)[number];

function formatArg(value: string): CheckFormat {
  if (!(CHECK_FORMATS as readonly string[]).includes(value)) {
    throw new InvalidArgumentError(`expected one of ${CHECK_FORMATS.join(', ')}`);
  }
  return value as CheckFormat;
}

interface CheckedModule {
  readonly module: string;
  readonly exportName: string;
  readonly agents: readonly AgentVerdicts[];
}

function checkText(
  policyPath: string,
  compiled: CompiledPolicy,
  checked: readonly CheckedModule[],
  problems: readonly CheckProblem[],
): string {
  const { policy } = compiled;
  const presets = [...new Set(compiled.origins.values())];
  const lines = [
    `gate-audit check-policy: ${visible(policyPath)} (${policy.rules.length} rule${policy.rules.length === 1 ? '' : 's'}, default ${policy.default}${
      presets.length === 0 ? '' : `, extends ${presets.join(', ')}`
    })`,
  ];
  let atDefault = 0;
  for (const source of checked) {
    lines.push('', `${visible(source.module)}#${visible(source.exportName)}`);
    for (const agent of source.agents) {
      lines.push(`  ${agent.path.map(visible).join(' › ')}`);
      if (agent.places.length > 1) {
        lines.push(
          `    (also at ${agent.places
            .slice(1)
            .map((p) => p.map(visible).join(' › '))
            .join('; ')}: path rules hold for every place)`,
        );
      }
      if (agent.tools.length === 0) lines.push('    (no tools)');
      const width = Math.max(0, ...agent.tools.map((t) => visible(t.tool).length));
      for (const tool of agent.tools) {
        if (tool.verdict !== 'depends' && tool.rule === 'default') atDefault += 1;
        lines.push(`    ${visible(tool.tool).padEnd(width)}  ${tool.verdict.padEnd(7)}  ${describe(tool)}`);
        const notes = [
          ...(tool.vended === undefined ? [] : [`SDK ${tool.vended}`]),
          ...(tool.runtime === 'swarm-handoff' ? ['added by the Swarm at run time'] : []),
          ...(tool.runtime === 'structured-output' ? ['added at run time for the structured output schema'] : []),
        ];
        if (tool.vended !== undefined) {
          notes.push(tool.rules.length === 0 ? 'no rule covers it' : `rules: ${tool.rules.map(visible).join(', ')}`);
        }
        if (notes.length > 0) lines.push(`    ${' '.repeat(width)}  ${' '.repeat(7)}  (${notes.join('; ')})`);
      }
    }
  }
  if (checked.length > 0) {
    lines.push(
      '',
      `${atDefault} tool${atDefault === 1 ? '' : 's'} fall${atDefault === 1 ? 's' : ''} to the default (${policy.default})`,
    );
  }
  for (const problem of problems) lines.push(`${problem.level}: ${visible(problem.message)}`);
  return `${lines.join('\n')}\n`;
}

function checkJson(
  policyPath: string,
  compiled: CompiledPolicy,
  checked: readonly CheckedModule[],
  problems: readonly CheckProblem[],
): string {
  const { policy } = compiled;
  return `${JSON.stringify(
    {
      policy: policyPath,
      id: policyId(policy),
      default: policy.default,
      rules: policy.rules.map((r) => ({ id: r.id, verdict: r.verdict, preset: compiled.origins.get(r.id) ?? null })),
      modules: checked,
      problems,
    },
    null,
    2,
  )}\n`;
}

function checkSarif(policyPath: string, problems: readonly CheckProblem[]): string {
  const codes = [...new Set(problems.map((p) => p.code))];
  const sarif = {
    version: '2.1.0',
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    runs: [
      {
        tool: {
          driver: {
            name: 'gate-audit check-policy',
            informationUri: 'https://www.npmjs.com/package/gate-audit',
            rules: codes.map((code) => ({ id: code, shortDescription: { text: code.replaceAll('-', ' ') } })),
          },
        },
        results: problems.map((p) => ({
          ruleId: p.code,
          level: p.level,
          message: { text: visible(p.message) },
          locations: [{ physicalLocation: { artifactLocation: { uri: policyPath.split(sep).join('/') } } }],
          properties: {
            ...(p.rule === undefined ? {} : { rule: p.rule }),
            ...(p.path === undefined ? {} : { path: joinPath(p.path) }),
            ...(p.tool === undefined ? {} : { tool: p.tool }),
          },
        })),
      },
    ],
  };
  return `${JSON.stringify(sarif, null, 2)}\n`;
}

/**
 * `gate-audit check-policy <policy> [module...]`.
 *
 * @returns the exit code: 0, 1 with `--strict` when a problem is an error, 2 for an invalid policy, a usage
 *   or a load error
 */
export async function checkPolicyCommand(argv: readonly string[], streams: Streams, cwd: string): Promise<number> {
  // Loaded here, not with the module: `verify-log` (also here) never needs them.
  const [{ policyProblems }, { checkLangGraphTree }, { loadModules }] = await Promise.all([
    import('../../policy/check-policy.js'),
    import('../../policy/check-langgraph.js'),
    import('../load.js'),
  ]);
  const command = subcommand('check-policy', streams)
    .description(
      'Validate a policy and show, per agent, each tool, the verdict the policy gives it before any input is known and the rules that cover it.',
    )
    .argument('<policy>', 'the policy file (YAML or JSON)')
    .argument(
      '[module...]',
      'modules exporting a Graph, a Swarm, or a factory of one (none: validate the policy alone)',
    )
    .option('--export <name>', 'check only this export of each module')
    .option(
      '--entry <file>',
      'run this entry point (in the audit process) and check each tree it invokes; each invocation is stopped (repeatable)',
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .option('--entry-args <args>', 'the arguments an entry gets after its path (split on spaces)')
    .option('--entry-settle <ms>', 'how long an entry run waits for another invocation after one', msArg, 2_000)
    .option('--timeout <ms>', 'how long an exported factory may take', msArg, 30_000)
    .option('--format <format>', `output format: ${CHECK_FORMATS.join(', ')}`, formatArg, 'text')
    .option('--strict', 'exit 1 when a rule matches no known tool or a tool falls to the default')
    .addHelpText(
      'after',
      '\nExit codes: 0 checked · 1 a problem under --strict · 2 invalid policy, usage or load error',
    );
  command.parse([...argv], { from: 'user' });
  const [policyPath, ...modules] = command.args as [string, ...string[]];
  const options = command.opts<{
    export?: string;
    timeout: number;
    format: CheckFormat;
    strict?: boolean;
    entry?: string[];
    entryArgs?: string;
    entrySettle: number;
  }>();
  let compiled: CompiledPolicy;
  try {
    compiled = loadCompiledPolicy(resolve(cwd, policyPath));
  } catch (error) {
    if (!(error instanceof PolicyError)) throw error;
    // The issues name keys and values from the document: every one neutralised before it is printed.
    const line = (i: PolicyError['issues'][number]): string =>
      `file=<${visible(error.file)}>${i.rule === undefined ? '' : `, rule=<${visible(i.rule)}>`}, field=<${visible(i.field)}> | ${visible(i.message)}`;
    const [only] = error.issues;
    streams.stderr.write(
      error.issues.length === 1 && only !== undefined
        ? `gate-audit: ${line(only)}\n`
        : `gate-audit: file=<${visible(error.file)}> | invalid policy (${error.issues.length} problems)\n${error.issues.map((i) => `  - ${line(i)}\n`).join('')}`,
    );
    return 2;
  }
  const found: { module: string; exportName: string; orchestrator: unknown }[] =
    modules.length === 0
      ? []
      : await loadModules(modules, {
          ...(options.export === undefined ? {} : { exportName: options.export }),
          timeoutMs: options.timeout,
          cwd,
          noise: (chunk) => void streams.stderr.write(chunk),
        });
  if ((options.entry ?? []).length > 0 && !isAuditing()) {
    streams.stderr.write(
      'gate-audit: check-policy --entry runs only in the audit process | run it with the gate-audit command\n',
    );
    return 2;
  }
  for (const entry of options.entry ?? []) {
    // Only in the audit process (the CLI runs check-policy there): its preload stops every invocation.
    const { runEntryInProcess } = await import('../child/entry-run.js');
    const absolute = resolve(cwd, entry);
    const end = await runEntryInProcess({
      entry: absolute,
      cwd,
      args: (options.entryArgs ?? '').split(/\s+/).filter((a) => a !== ''),
      settleMs: options.entrySettle,
      timeoutMs: options.timeout,
      onTarget: (target, _kind, id) =>
        found.push({ module: entry, exportName: `(invoked ${id})`, orchestrator: target }),
    });
    if (end.invocations === 0) {
      streams.stderr.write(
        `gate-audit: entry=<${visible(entry)}> | invoked no agent or orchestrator${end.threw === undefined ? '' : ` (its import threw: ${visible(end.threw.split('\n')[0] ?? '')})`} | make it invoke its tree at startup, or check the module that builds it\n`,
      );
      return 2;
    }
  }
  const checked: { module: string; exportName: string; agents: AgentVerdicts[] }[] = [];
  for (const source of found) {
    let agents = checkLangGraphTree(compiled, source.orchestrator);
    if (agents === undefined) {
      // A Strands tree: its walk loads @strands-agents/sdk (an optional peer), so it is loaded only for one.
      requireStrandsSdk(`check-policy of "${source.module}#${source.exportName}" (not a LangGraph graph)`);
      const { checkStrandsTree } = await import('../../policy/check-strands.js');
      agents = checkStrandsTree(compiled, source.orchestrator);
    }
    checked.push({ module: source.module, exportName: source.exportName, agents });
  }
  const problems = policyProblems(
    compiled,
    checked.flatMap((c) => c.agents),
    modules.length > 0 || (options.entry ?? []).length > 0,
  ).map((p) => (options.strict === true || p.level !== 'error' ? p : { ...p, level: 'warning' as const }));
  // Each format through its final pass: no line of it is a CI runner's workflow command.
  const output =
    options.format === 'json'
      ? neutralizeCommands(jsonVisible(checkJson(policyPath, compiled, checked, problems)), 'json')
      : options.format === 'sarif'
        ? neutralizeCommands(jsonVisible(checkSarif(policyPath, problems)), 'json')
        : neutralizeCommands(checkText(policyPath, compiled, checked, problems), 'text');
  streams.stdout.write(output);
  return problems.some((p) => p.level === 'error') ? 1 : 0;
}

const VERIFY_FORMATS = ['text', 'json'] as const;
type VerifyFormat = (typeof VERIFY_FORMATS)[number];

function verifyFormatArg(value: string): VerifyFormat {
  if (!(VERIFY_FORMATS as readonly string[]).includes(value)) {
    throw new InvalidArgumentError(`expected one of ${VERIFY_FORMATS.join(', ')}`);
  }
  return value as VerifyFormat;
}

function lastHashArg(value: string): string {
  const parsed = parseLastHash(value);
  if (parsed === undefined) {
    throw new InvalidArgumentError('expected a SHA-256 in hex (64 digits), as verify-log prints after "last hash"');
  }
  return parsed;
}

/**
 * Collects `--key <name>=<public key>` arguments.
 *
 * @param value - one argument
 * @param previous - the keys so far
 */
export function writerKeyArg(value: string, previous: Record<string, string> = {}): Record<string, string> {
  const parsed = parseKeyArgument(value);
  if (parsed === undefined) {
    throw new InvalidArgumentError("expected <name>=<public key>, the writer key's name and the line keygen printed");
  }
  return { ...previous, [parsed[0]]: parsed[1] };
}

/** The signature part of a verify-log text line: what is signed, and the unsigned tail. */
export function signedText(result: {
  readonly signatures: 'checked' | 'not checked';
  readonly lastCheckpoint: number | null;
  readonly lastCheckpointKey?: string;
  readonly unsigned: number;
}): string {
  if (result.signatures === 'not checked') {
    return result.lastCheckpoint === null ? '' : ', signatures not checked (pass --key or --keyring)';
  }
  const signed =
    result.lastCheckpoint === null
      ? ', no signed checkpoint'
      : `, signed through seq ${result.lastCheckpoint - 1} by key ${quoted(result.lastCheckpointKey ?? '')}`;
  return `${signed}${result.unsigned === 0 ? '' : `, ${result.unsigned} record${result.unsigned === 1 ? '' : 's'} after it unsigned`}`;
}

/** Why a file cannot be read, and what to do about it. */
function unreadable(error: unknown): string {
  const code = error instanceof Error && 'code' in error ? String(error.code) : undefined;
  if (code === 'ENOENT') return '(ENOENT) | check the path';
  if (code === 'EISDIR') return '(EISDIR) | it is a directory: name the log file in it';
  if (code === 'EACCES' || code === 'EPERM') return `(${code}) | this user may not read it`;
  return `(${code ?? String(error)}) | check the file`;
}

function verifyText(file: string, result: LogVerification & { ok: true }, expect: string | undefined): string {
  const name = visible(file);
  return (
    `gate-audit verify-log: ${name} OK, ${result.records} records, chain intact, last hash ${result.lastHash ?? '(none)'}` +
    `${expect === undefined ? '' : ' (as expected)'}${signedText(result)}\n`
  );
}

/**
 * `gate-audit verify-log <file>`: reads the log as a stream, so a log of any size is checked in bounded memory.
 *
 * @returns the exit code: 0 the chain is intact (and ends at `--expect-last-hash`), 1 a record is broken or
 *   missing, 2 a usage error or the file cannot be read
 */
/**
 * Resolves once a stream that has more queued than it wants (a pipe read slower than the breaks are found)
 * has drained, ended or failed; undefined when nothing is queued (or it is not a Node stream).
 */
function drained(stream: Streams['stdout']): Promise<void> | undefined {
  const out = stream as Partial<{
    writableNeedDrain: boolean;
    once(event: string, listener: () => void): unknown;
    off(event: string, listener: () => void): unknown;
  }>;
  if (out.writableNeedDrain !== true || typeof out.once !== 'function' || typeof out.off !== 'function') {
    return undefined;
  }
  const events = ['drain', 'close', 'error'];
  return new Promise<void>((resolve) => {
    const done = (): void => {
      for (const event of events) out.off?.(event, done);
      resolve();
    };
    for (const event of events) out.once?.(event, done);
  });
}

export async function verifyLogCommand(argv: readonly string[], streams: Streams, cwd: string): Promise<number> {
  const command = subcommand('verify-log', streams)
    .description('Check a hash-chained decision log: report every broken or missing record.')
    .argument('<file>', 'the decision log (JSON lines)')
    .option(
      '--expect-last-hash <hex>',
      'the hash the last record must have (kept elsewhere): catches a cut tail or a rewritten log',
      lastHashArg,
    )
    .option(
      '--key <name=public key>',
      "a writer key to check the log's signed checkpoints with (repeatable)",
      writerKeyArg,
    )
    .option('--keyring <file>', 'a writers\' keyring file: { "writers": { "<name>": "<public key>" } }')
    .option('--require-signed', 'exit 1 when records after the last signed checkpoint are unsigned')
    .option('--format <format>', `output format: ${VERIFY_FORMATS.join(', ')}`, verifyFormatArg, 'text')
    .addHelpText(
      'after',
      '\nExit codes: 0 intact · 1 a record is broken or missing, or the chain does not end at --expect-last-hash, ' +
        'or (with --require-signed) records are unsigned · 2 usage error or unreadable file',
    );
  command.parse([...argv], { from: 'user' });
  const [file] = command.args as [string];
  const options = command.opts<{
    expectLastHash?: string;
    format: VerifyFormat;
    key?: Record<string, string>;
    keyring?: string;
    requireSigned?: boolean;
  }>();
  const { expectLastHash } = options;
  if (options.requireSigned === true && options.key === undefined && options.keyring === undefined) {
    streams.stderr.write(
      'gate-audit verify-log: option=<--require-signed> | no key to check signatures with | pass --key <name>=<public key> or --keyring <file>\n',
    );
    return 2;
  }
  let result: LogVerification;
  // Text: each break is written as it is found (the first as the headline), so every one is reported in
  // bounded memory; JSON lists the first MAX_LISTED_BREAKS and the count.
  const text = options.format !== 'json';
  let breaks = 0;
  const onBreak = (found: LogLineBreak, before: number): void => {
    breaks += 1;
    streams.stdout.write(
      neutralizeCommands(
        breaks === 1
          ? `gate-audit verify-log: ${visible(file)} BROKEN at line ${found.line}: ${visible(found.problem)} ` +
              `(${before} record${before === 1 ? '' : 's'} before it intact)\n`
          : `  break: line=<${found.line}>, seq=<${found.seq ?? '-'}> | ${visible(found.problem)}\n`,
        'text',
      ),
    );
  };
  try {
    result = await verifyLogFile(resolve(cwd, file), {
      ...(text ? { onBreak, pace: () => drained(streams.stdout) } : {}),
      ...(expectLastHash === undefined ? {} : { expectLastHash }),
      ...(options.key === undefined ? {} : { keys: options.key }),
      ...(options.keyring === undefined ? {} : { keyring: resolve(cwd, options.keyring) }),
    });
  } catch (error) {
    if (error instanceof GateAuditError) {
      streams.stderr.write(`gate-audit verify-log: ${error.message}\n`);
      return 2;
    }
    streams.stderr.write(`gate-audit verify-log: cannot read ${quoted(file)} ${unreadable(error)}\n`);
    return 2;
  }
  streams.stdout.write(
    options.format === 'json'
      ? neutralizeCommands(
          jsonVisible(
            `${JSON.stringify({ file, ...result, ...(expectLastHash === undefined ? {} : { expectedLastHash: expectLastHash }) }, null, 2)}\n`,
          ),
          'json',
        )
      : result.ok
        ? neutralizeCommands(verifyText(file, result, expectLastHash), 'text')
        : result.breakCount > 1
          ? `  ${result.breakCount} breaks in all\n`
          : '',
  );
  if (!result.ok) return 1;
  if (result.signatures === 'checked' && result.unsigned > 0) {
    streams.stderr.write(
      neutralizeCommands(
        `gate-audit verify-log: warning: file=<${visible(file)}> | ${result.unsigned} record${result.unsigned === 1 ? '' : 's'} after the last signed checkpoint ${result.unsigned === 1 ? 'is' : 'are'} unsigned (the writer did not close the log) | ${options.requireSigned === true ? 'refused: --require-signed' : 'pass --require-signed to fail on them'}\n`,
        'text',
      ),
    );
    if (options.requireSigned === true) return 1;
  }
  return 0;
}
