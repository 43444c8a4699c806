/**
 * Bash itself as the oracle of what a line runs and writes, observed from outside the line's reach.
 *
 * Each line runs the way the SDK's tools hand it over: the `bash` tool writes the line and a sentinel
 * `echo` line to one bash's standard input; the `shell` tool runs `sh -c "cd <cwd> && <line>"` (dash here).
 * It runs as an unprivileged user (65534) in a throwaway root of its own: an overlay on a prepared root that
 * holds bash, dash, their libraries, stub programs (each does nothing; the builtins bash can give up, `echo`,
 * `printf`, `test`, `[`, `pwd`, `kill`, `true`, `false`, are disabled with `enable -n` and reach stubs that
 * behave as dash's builtins of the same name) and the wrappers the analysis looks through (`env`, `xargs`,
 * `find`, `timeout`, `nice`, `nohup`, `setsid`, `stdbuf`, `flock`), which run for real, so `xargs rm` runs
 * the `rm` stub. Private mount, PID and network namespaces: stray background jobs end with the namespace's
 * first process, which waits for all of them; nothing reaches a network.
 *
 * The record is out of the line's reach: what ran is every successful `execve` as `strace` (outside the
 * namespaces, writing to a file outside the root) sees it, with the path run and its words; what was written
 * is the overlay's upper directory after the run (files created, changed or deleted anywhere in the root,
 * `/etc` included). Neither is a file the line's user can write or a path taken from its environment.
 * Dash's builtins cannot be disabled: in `sh` mode, `echo` and `printf` are not seen.
 *
 * A line still running after 2 s is a failure of the harness (`timedOut`), never a pass.
 * Needs root, or `unshare --user --map-root-user` where the kernel allows it (then the line runs as the
 * namespace's root); `oracleSupport()` says which, and why not.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** One program run: the basename of the file run and its words after the program name. */
export interface Run {
  readonly program: string;
  readonly args: readonly string[];
}

/** What bash did with one line. */
export interface Observation {
  /** Every program run, in the order `execve` succeeded (the tool's own shell and sentinel left out). */
  readonly runs: readonly Run[];
  /** Absolute paths (inside the root) of files created, changed or deleted. */
  readonly writes: readonly string[];
  /** The line was still running after 2 s and was killed: a failure of the harness for that line. */
  readonly timedOut: boolean;
}

/** How the line is handed over: `bash`, the `bash` tool (standard input); `sh`, the `shell` tool (`sh -c`). */
export type Mode = 'bash' | 'sh';

/** The working directory lines run in, inside the throwaway root, owned by the line's user. */
export const WORK = '/work';

/** Files the working directory is seeded with. */
export const SEED = ['a', 'b', 'in', 'notes.txt'] as const;

/** Wrappers that run for real (they run what they name, which must be seen). */
export const REAL_WRAPPERS = ['env', 'xargs', 'find', 'timeout', 'nice', 'nohup', 'setsid', 'stdbuf', 'flock'] as const;

/** Builtins that run nothing else: disabled in bash, so the stub of the same name runs and is seen. */
export const LOGGED_BUILTINS = ['echo', 'printf', 'test', '[', 'pwd', 'kill', 'true', 'false'] as const;

const TIMEOUT_SECONDS = 2;

/** Devices bound into the root from the host (programs such as git need random bytes). */
const DEVICES = ['null', 'zero', 'urandom'] as const;

/** The environment every line starts with (bash reads the file that disables the logged builtins). */
const LINE_ENV = ['/usr/bin/env', '-i', 'BASH_ENV=/etc/oracle-env', 'PATH=/usr/bin:/bin', `HOME=${WORK}`];

/**
 * The same environment in the batch driver, which itself runs with `PATH` alone: given as assignments to the
 * line's shell rather than through `env -i`, one program start fewer per line.
 */
const BATCH_ENV = `BASH_ENV=/etc/oracle-env HOME=${WORK}`;

/** The tool's own shell, as it is started: bash reading its standard input, or `sh -c "cd <cwd> && <line>"`. */
function toolShell(source: string, mode: Mode): string[] {
  // As the shell receives it: a lone UTF-16 surrogate has no UTF-8 form and goes as U+FFFD.
  const line = Buffer.from(source, 'utf8').toString('utf8');
  return mode === 'bash' ? ['/bin/bash'] : ['/bin/sh', '-c', `cd ${WORK} && ${line}`];
}

function which(program: string): string | undefined {
  const found = spawnSync('/bin/sh', ['-c', `command -v ${program}`], { encoding: 'utf8' });
  const path = found.stdout.trim();
  return found.status === 0 && path.startsWith('/') ? path : undefined;
}

/** How this machine can run the oracle, or why it cannot. */
export type Support =
  | { readonly ok: true; readonly how: 'root' | 'user-namespace' }
  | { readonly ok: false; readonly why: string };

let support: Support | undefined;

/** Whether the oracle can run here: Linux, strace, unshare, chroot, mount, bash, dash, and root or a user namespace. */
export function oracleSupport(): Support {
  support ??= findSupport();
  return support;
}

function findSupport(): Support {
  if (process.platform !== 'linux')
    return { ok: false, why: `the oracle needs Linux namespaces (this is ${process.platform})` };
  const missing = ['strace', 'unshare', 'chroot', 'mount', 'bash', 'dash', 'ldd', 'timeout'].filter(
    (p) => which(p) === undefined,
  );
  if (missing.length > 0) return { ok: false, why: `missing on this machine: ${missing.join(', ')}` };
  if (process.getuid?.() === 0) return { ok: true, how: 'root' };
  const probe = spawnSync(which('unshare') ?? 'unshare', ['--user', '--map-root-user', '-m', '-p', '-f', '-n', 'true']);
  if (probe.status === 0) return { ok: true, how: 'user-namespace' };
  return { ok: false, why: 'not root, and unprivileged user namespaces are not allowed here' };
}

/**
 * Whether a test run may skip the oracle: only when `GATE_AUDIT_ORACLE=off` is set. Otherwise a machine that
 * cannot run it fails the oracle tests (CI refuses the setting).
 */
export function oracleOff(): boolean {
  return process.env.GATE_AUDIT_ORACLE === 'off';
}

/** The shells' versions the observations come from. */
export interface ShellVersions {
  readonly bash: string;
  readonly dash: string;
}

/** The versions of this machine's bash and dash. */
export function shellVersions(): ShellVersions {
  const bash = /version (\S+)/.exec(spawnSync('bash', ['--version'], { encoding: 'utf8' }).stdout)?.[1] ?? 'unknown';
  const dpkg = spawnSync('dpkg-query', ['-W', '-f=${Version}', 'dash'], { encoding: 'utf8' });
  return { bash, dash: dpkg.status === 0 ? dpkg.stdout.trim() : 'unknown' };
}

function copyWithLibraries(root: string, binary: string, as: string): void {
  const target = join(root, as);
  mkdirSync(dirname(target), { recursive: true });
  copyFileSync(binary, target);
  chmodSync(target, 0o755);
  let listed: string;
  try {
    listed = execFileSync('ldd', [binary], { encoding: 'utf8' });
  } catch {
    return; // a static binary
  }
  for (const match of listed.matchAll(/(\/[^\s]+\.so[^\s]*)/g)) {
    const library = match[1] ?? '';
    const copy = join(root, library);
    mkdirSync(dirname(copy), { recursive: true });
    if (!existsSync(copy)) copyFileSync(library, copy);
  }
}

/** The dash script behind each stub: builtins behave as dash's own; anything else does nothing. */
function stubScript(program: string): string {
  switch (program) {
    case 'echo':
      return '#!/bin/dash\necho "$@"\n';
    case 'printf':
    case 'test':
    case 'pwd':
    case 'kill':
      return `#!/bin/dash\n${program} "$@"\n`;
    case '[':
      return '#!/bin/dash\n[ "$@"\n';
    case 'false':
      return '#!/bin/dash\nexit 1\n';
    default:
      return '#!/bin/dash\nexit 0\n';
  }
}

const STUB_NAME = /^[\w.+[-]+$/;
const NOT_STUBBED = new Set(['bash', 'sh', 'dash', '.', '..', ...REAL_WRAPPERS]);

/** Options of an oracle. */
export interface OracleOptions {
  /** Program names to stub (anything else is "command not found"). */
  readonly stubs: Iterable<string>;
  /** Real programs to install (with their libraries) instead of stubs, for tests of what a program does itself. */
  readonly real?: Iterable<string>;
  /** Fills the working directory of the prepared root (after the seed files; given its path on this machine). */
  readonly seed?: (work: string) => void;
}

/** A prepared root and the means to run lines in throwaway copies of it. */
export class Oracle {
  private readonly _dir: string;
  private readonly _lower: string;
  private readonly _how: 'root' | 'user-namespace';
  private _count = 0;
  private readonly _tools: Record<'strace' | 'unshare' | 'mount' | 'chroot' | 'timeout', string>;

  /** @param options - what to stub and what to install for real */
  constructor(options: OracleOptions) {
    const found = oracleSupport();
    if (!found.ok) throw new Error(`the bash oracle cannot run here: ${found.why}`);
    this._how = found.how;
    this._tools = {
      strace: which('strace') ?? 'strace',
      unshare: which('unshare') ?? 'unshare',
      mount: which('mount') ?? 'mount',
      chroot: which('chroot') ?? 'chroot',
      timeout: which('timeout') ?? 'timeout',
    };
    this._dir = mkdtempSync(join(tmpdir(), 'gate-audit-oracle-'));
    chmodSync(this._dir, 0o755);
    this._lower = join(this._dir, 'lower');
    const root = this._lower;
    for (const dir of ['bin', 'usr/bin', 'dev', 'tmp', 'etc', 'proc', WORK.slice(1), 'root'])
      mkdirSync(join(root, dir), { recursive: true });
    chmodSync(join(root, 'tmp'), 0o1777);
    for (const device of DEVICES) writeFileSync(join(root, 'dev', device), '');
    for (const shell of ['bash', 'dash']) copyWithLibraries(root, which(shell) ?? '', `bin/${shell}`);
    symlinkSync('dash', join(root, 'bin/sh'));
    for (const wrapper of REAL_WRAPPERS) {
      const real = which(wrapper);
      if (real !== undefined) copyWithLibraries(root, real, `usr/bin/${wrapper}`);
    }
    const stdbuf = '/usr/libexec/coreutils/libstdbuf.so';
    if (existsSync(stdbuf)) copyWithLibraries(root, stdbuf, stdbuf.slice(1));
    const real = new Set(options.real ?? []);
    for (const program of real) {
      const path = which(program);
      if (path === undefined) throw new Error(`the oracle cannot install ${program}: not found on this machine`);
      copyWithLibraries(root, path, `usr/bin/${program}`);
    }
    for (const program of new Set([...options.stubs, ...LOGGED_BUILTINS])) {
      if (!STUB_NAME.test(program) || NOT_STUBBED.has(program) || real.has(program)) continue;
      // In both directories: a program may start another by an absolute path (diff runs /usr/bin/pr).
      for (const dir of ['bin', 'usr/bin']) {
        const file = join(root, dir, program);
        writeFileSync(file, stubScript(program));
        chmodSync(file, 0o755);
      }
    }
    // Read by every non-interactive bash (the tool's and any `bash -c` inside a line).
    writeFileSync(join(root, 'etc/oracle-env'), `enable -n ${LOGGED_BUILTINS.join(' ')}\n`);
    writeFileSync(join(root, 'etc/passwd'), 'root:x:0:0::/root:/bin/sh\nnobody:x:65534:65534::/work:/bin/sh\n');
    // The namespace's first process: runs the tool's shell in the working directory, then waits until every
    // process of the namespace has ended (orphaned background jobs included), with builtins only.
    writeFileSync(
      join(root, 'etc/oracle-init'),
      [
        `cd ${WORK} || exit 125`,
        // A pipe nobody writes to: reading it with a timeout waits without running a program.
        'exec {pause}<> <(:)',
        '"$@"',
        'status=$?',
        'while :; do set -- /proc/[0-9]*; [ "$#" -le 1 ] && break; read -r -t 0.002 -u "$pause"; done',
        'exit "$status"',
        '',
      ].join('\n'),
    );
    // Many lines in one root (fuzzing): a marker run before each, then the line's own shell, then a wait
    // until every process the line started has ended.
    writeFileSync(
      join(root, 'etc/oracle-batch'),
      [
        'i=0',
        'exec {pause}<> <(:)',
        "while IFS= read -r -d '' mode && IFS= read -r -d '' line; do",
        '  /bin/.mark "$i"',
        `  cd ${WORK}`,
        '  if [ "$mode" = bash ]; then',
        `    printf '%s\\necho "__GATE_AUDIT_DONE_%s__"\\n' "$line" "$i" | ${BATCH_ENV} /bin/bash >/dev/null 2>&1`,
        '  else',
        `    ${BATCH_ENV} /bin/sh -c "cd ${WORK} && $line" </dev/null >/dev/null 2>&1`,
        '  fi',
        '  while :; do set -- /proc/[0-9]*; [ "$#" -le 1 ] && break; read -r -t 0.002 -u "$pause"; done',
        '  i=$((i+1))',
        'done < /batch/lines',
        '',
      ].join('\n'),
    );
    writeFileSync(join(root, 'bin/.mark'), '#!/bin/dash\nexit 0\n');
    chmodSync(join(root, 'bin/.mark'), 0o755);
    mkdirSync(join(root, 'batch'));
    for (const file of SEED) writeFileSync(join(root, WORK.slice(1), file), `${file}\n`);
    options.seed?.(join(root, WORK.slice(1)));
    if (this._how === 'root') execFileSync('chown', ['-R', '65534:65534', join(root, WORK.slice(1))]);
  }

  /**
   * Runs one line in a throwaway root of its own and reports what ran and what was written.
   *
   * @param line - the command line
   * @param mode - `bash`: the bash tool's way (standard input, then a sentinel line); `sh`: the shell tool's
   */
  async observe(line: string, mode: Mode): Promise<Observation> {
    const sentinel = `__GATE_AUDIT_DONE_${createHash('sha256').update(line).digest('hex').slice(0, 16)}__`;
    const shell = toolShell(line, mode);
    const input = mode === 'bash' ? `${line}\necho "${sentinel}"\n` : '';
    const run = await this._inRoot(
      ['/usr/bin/env', '-i', '/bin/bash', '--noprofile', '--norc', '/etc/oracle-init', ...LINE_ENV, ...shell],
      input,
      TIMEOUT_SECONDS,
    );
    return {
      runs: runsAfter(successfulExecs(run.trace), shell, sentinel),
      writes: run.writes,
      timedOut: run.timedOut,
    };
  }

  /**
   * Runs many lines in one throwaway root, one after another, each in its own shell, waiting for every
   * process a line started before the next line: far cheaper per line (for fuzzing), but the lines share
   * the root, so only what ran is reported per line, not what was written. A batch that does not end in
   * time is run again line by line.
   *
   * @param lines - the lines and how each is handed over (no NUL in a line)
   */
  async observeBatch(
    lines: readonly { readonly line: string; readonly mode: Mode }[],
  ): Promise<{ runs: readonly Run[]; timedOut: boolean }[]> {
    const data = lines.map((l) => `${l.mode}\0${l.line}\0`).join('');
    const run = await this._inRoot(
      ['/usr/bin/env', '-i', 'PATH=/usr/bin:/bin', '/bin/bash', '/etc/oracle-batch'],
      '',
      4 + lines.length * 0.5,
      data,
    );
    if (run.timedOut) return Promise.all(lines.map((l) => this.observe(l.line, l.mode)));
    const execs = successfulExecs(run.trace);
    const segments: ExecRecord[][] = [];
    for (const exec of execs) {
      if (exec.path === '/bin/.mark') segments.push([]);
      else segments.at(-1)?.push(exec);
    }
    return lines.map((l, i) => ({
      runs: runsAfter(segments[i] ?? [], toolShell(l.line, l.mode), `__GATE_AUDIT_DONE_${i}__`),
      timedOut: false,
    }));
  }

  /** Runs `command` as the namespace's first process in a fresh overlay of the prepared root. */
  private async _inRoot(
    command: readonly string[],
    input: string,
    timeout: number,
    batch?: string,
  ): Promise<{ trace: string; writes: string[]; timedOut: boolean }> {
    this._count += 1;
    const base = join(this._dir, 'runs', String(this._count));
    const upper = join(base, 'upper');
    const work = join(base, 'work');
    const merged = join(base, 'root');
    const lines = join(base, 'batch');
    for (const dir of [upper, work, merged, lines]) mkdirSync(dir, { recursive: true });
    if (batch !== undefined) writeFileSync(join(lines, 'lines'), batch);
    const trace = join(base, 'trace');
    const user = this._how === 'root' ? ['--userspec=65534:65534'] : [];
    const setup = [
      `${this._tools.mount} -t overlay overlay -o lowerdir=${this._lower},upperdir=${upper},workdir=${work} ${merged}`,
      `${this._tools.mount} -t proc proc ${merged}/proc`,
      ...DEVICES.map((device) => `${this._tools.mount} --bind /dev/${device} ${merged}/dev/${device}`),
      `${this._tools.mount} --bind -o ro ${lines} ${merged}/batch`,
      `exec ${this._tools.chroot} ${user.join(' ')} ${merged} "$@"`,
    ].join(' && ');
    const namespaces = this._how === 'root' ? [] : ['--user', '--map-root-user'];
    const args = [
      ...['-f', '-qq', '--seccomp-bpf', '-e', 'trace=execve', '-e', 'signal=none', '-xx', '-s', '1048576', '-v'],
      ...['-o', trace, '--', this._tools.timeout, '-s', 'KILL', String(timeout)],
      ...[
        this._tools.unshare,
        ...namespaces,
        '--kill-child',
        '-n',
        '-m',
        '-p',
        '-f',
        '/bin/dash',
        '-c',
        setup,
        'oracle',
      ],
      ...command,
    ];
    const status = await new Promise<number | null>((resolve, reject) => {
      const child = spawn(this._tools.strace, args, { stdio: ['pipe', 'ignore', 'ignore'] });
      child.on('error', reject);
      child.on('close', (code) => resolve(code));
      child.stdin.on('error', () => {
        // the line may end before reading all of its input
      });
      child.stdin.end(input);
    });
    try {
      return {
        trace: readFileSync(trace, 'utf8'),
        writes: changedFiles(upper, this._lower),
        timedOut: status === 137 || status === null,
      };
    } finally {
      if (process.env.KEEP === undefined) rmSync(base, { recursive: true, force: true });
    }
  }

  /**
   * Runs lines (each in its own throwaway root), a few at a time.
   *
   * @param lines - the lines and how each is handed over
   * @param concurrency - how many run at once
   */
  async observeAll(
    lines: readonly { readonly line: string; readonly mode: Mode }[],
    concurrency = 3,
  ): Promise<Observation[]> {
    const results: Observation[] = new Array<Observation>(lines.length);
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < lines.length) {
        const index = next;
        next += 1;
        const entry = lines[index];
        if (entry !== undefined) results[index] = await this.observe(entry.line, entry.mode);
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, concurrency) }, worker));
    // A line that ran out of time while others ran beside it gets one more try alone: a busy machine is not
    // the line's doing. Still running then, it is reported.
    for (const [index, result] of results.entries()) {
      const entry = lines[index];
      if (result.timedOut && entry !== undefined) results[index] = await this.observe(entry.line, entry.mode);
    }
    return results;
  }

  /** Removes the prepared root. */
  dispose(): void {
    rmSync(this._dir, { recursive: true, force: true });
  }
}

/** Decodes one of strace's `-xx` strings (every byte as `\xHH`) as UTF-8. */
function decode(hex: string): string {
  const bytes = Buffer.alloc(hex.length / 4);
  for (let i = 0; i < bytes.length; i += 1) bytes[i] = Number.parseInt(hex.slice(i * 4 + 2, i * 4 + 4), 16);
  return bytes.toString('utf8');
}

const EXECVE = /^(\d+) +execve\("((?:\\x[0-9a-f]{2})*)", \[((?:"(?:\\x[0-9a-f]{2})*"(?:, )?)*)\](.*)$/;
const RESUMED = /^(\d+) +<\.\.\. execve resumed>.*\)\s*=\s*(-?\d+)/;

/** One successful `execve`: the path run and its words. */
export interface ExecRecord {
  readonly path: string;
  readonly argv: readonly string[];
}

/** Every successful `execve` in strace's record, in order (calls split by another process's are joined). */
export function successfulExecs(trace: string): ExecRecord[] {
  const execs: ExecRecord[] = [];
  const pending = new Map<string, ExecRecord>();
  for (const record of trace.split('\n')) {
    const resumed = RESUMED.exec(record);
    if (resumed !== null) {
      const started = pending.get(resumed[1] ?? '');
      pending.delete(resumed[1] ?? '');
      if (started !== undefined && resumed[2] === '0') execs.push(started);
      continue;
    }
    const call = EXECVE.exec(record);
    if (call === null) continue;
    const path = decode(call[2] ?? '');
    const argv = [...(call[3] ?? '').matchAll(/"((?:\\x[0-9a-f]{2})*)"/g)].map((m) => decode(m[1] ?? ''));
    const rest = call[4] ?? '';
    if (rest.includes('<unfinished ...>')) pending.set(call[1] ?? '', { path, argv });
    else if (/\)\s*=\s*0$/.test(rest)) execs.push({ path, argv });
  }
  return execs;
}

/**
 * The programs a line ran: every exec after the tool's own shell started, as (basename of the path run,
 * words after argv[0]); the bash tool's sentinel `echo` left out.
 */
export function runsAfter(execs: readonly ExecRecord[], shell: readonly string[], sentinel: string): Run[] {
  const start = execs.findIndex(
    (e) => e.path === shell[0] && e.argv.length === shell.length && e.argv.every((a, i) => i === 0 || a === shell[i]),
  );
  if (start < 0) throw new Error(`the oracle's trace does not show the tool's shell starting (${shell.join(' ')})`);
  const runs = execs
    .slice(start + 1)
    .map((e) => ({ program: e.path.slice(e.path.lastIndexOf('/') + 1), args: e.argv.slice(1) }));
  // The sentinel's `echo` is the tool's, not the line's; a job the line put in the background may run after it.
  const sentinelAt = runs.findLastIndex((r) => r.program === 'echo' && r.args.length === 1 && r.args[0] === sentinel);
  if (sentinelAt >= 0) runs.splice(sentinelAt, 1);
  return runs;
}

/** Files created, changed or deleted in the overlay's upper directory (a whiteout is a deletion). */
function changedFiles(upper: string, lower: string): string[] {
  const out: string[] = [];
  const walk = (relative: string): void => {
    let names: string[];
    try {
      names = readdirSync(join(upper, relative));
    } catch {
      return;
    }
    for (const name of names) {
      const path = `${relative}/${name}`;
      const stat = lstatSync(join(upper, path));
      if (stat.isDirectory()) {
        if (!existsSync(join(lower, path))) out.push(path);
        walk(path);
      } else out.push(path);
    }
  };
  walk('');
  return out.sort();
}
