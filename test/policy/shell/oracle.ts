/**
 * Bash itself as the oracle of what a line runs, observed safely: the line runs in a throwaway root
 * (`chroot`) that holds only bash, dash, their libraries and stub programs, each of which records its name
 * and arguments and does nothing else, in a network namespace with no interface (`unshare -n`), so a
 * `/dev/tcp` redirection cannot reach anything. Needs root (CI runs as root); `available()` says whether
 * this machine can do it.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** One program run: its basename and its arguments. */
export interface Run {
  readonly program: string;
  readonly args: readonly string[];
}

const FIELD = '\x1f';
const RECORD = '\x1e';

function which(program: string): string | undefined {
  const found = spawnSync('sh', ['-c', `command -v ${program}`], { encoding: 'utf8' });
  return found.status === 0 ? found.stdout.trim() : undefined;
}

/** Whether the oracle can run here (root, `unshare`, `chroot`, bash and dash). */
export function available(): boolean {
  return (
    process.platform === 'linux' &&
    process.getuid?.() === 0 &&
    ['unshare', 'chroot', 'bash', 'dash', 'ldd'].every((p) => which(p) !== undefined)
  );
}

/** A throwaway root with bash, dash and stubs for `programs`. */
export class Oracle {
  private readonly _root: string;
  private _count = 0;
  private readonly _unshare = which('unshare') ?? 'unshare';
  private readonly _chroot = which('chroot') ?? 'chroot';

  /** @param programs - names to stub (anything else is "command not found") */
  constructor(programs: Iterable<string>) {
    this._root = mkdtempSync(join(tmpdir(), 'gate-audit-oracle-'));
    for (const dir of ['bin', 'usr/bin', 'dev', 'tmp', 'etc', 'work', 'log'])
      mkdirSync(join(this._root, dir), { recursive: true });
    for (const shell of ['bash', 'dash']) {
      const real = which(shell) ?? '';
      copyFileSync(real, join(this._root, 'bin', shell));
      chmodSync(join(this._root, 'bin', shell), 0o755);
      const libraries = execFileSync('ldd', [real], { encoding: 'utf8' });
      for (const match of libraries.matchAll(/(\/[^\s]+\.so[^\s]*)/g)) {
        const library = match[1] ?? '';
        const target = join(this._root, library);
        mkdirSync(dirname(target), { recursive: true });
        if (!existsSync(target)) copyFileSync(library, target);
      }
    }
    copyFileSync(join(this._root, 'bin/dash'), join(this._root, 'bin/sh'));
    chmodSync(join(this._root, 'bin/sh'), 0o755);
    execFileSync('mknod', ['-m', '666', join(this._root, 'dev/null'), 'c', '1', '3']);
    // Stubs run under dash, which reads no startup file from the environment (a bash stub would run
    // BASH_ENV, which a corpus line may set). One write per run (pipelines run stubs at the same time):
    // the record is built first, then appended.
    const stub = `#!/bin/dash\nrecord=$(printf '%s\\037' "\${0##*/}" "$@")\nprintf '%s\\036' "$record" >> "$STUBLOG"\n`;
    for (const program of programs) {
      if (!/^[\w.+-]+$/.test(program) || ['bash', 'sh', 'dash', '.', '..'].includes(program)) continue;
      for (const dir of ['bin', 'usr/bin']) {
        const file = join(this._root, dir, program);
        writeFileSync(file, stub);
        chmodSync(file, 0o755);
      }
    }
  }

  /**
   * Runs lines as the bash tool (`bash -c`) or the shell tool (`sh -c`) would, each in its own shell, and
   * returns what each ran. One process enters the throwaway root and runs them in turn.
   *
   * @param lines - the command lines and their dialects
   */
  runAll(lines: readonly { readonly line: string; readonly dialect: 'bash' | 'sh' }[]): Run[][] {
    this._count += 1;
    const batch = `/log/${this._count}`;
    mkdirSync(join(this._root, batch), { recursive: true });
    writeFileSync(join(this._root, batch, 'lines'), lines.map((l) => `${l.dialect}\0${l.line}\0`).join(''));
    const driver = [
      'i=0',
      `while IFS= read -r -d '' dialect && IFS= read -r -d '' line; do`,
      '  i=$((i+1))',
      `  : > ${batch}/$i`,
      `  if [ "$dialect" = bash ]; then STUBLOG=${batch}/$i /bin/bash -c "$line"; else STUBLOG=${batch}/$i /bin/sh -c "$line"; fi </dev/null >/dev/null 2>&1`,
      `done < ${batch}/lines`,
    ].join('\n');
    try {
      spawnSync(this._unshare, ['-n', this._chroot, this._root, '/bin/bash', '-c', driver], {
        env: { PATH: '/usr/bin:/bin', HOME: '/work' },
        input: '',
        timeout: 120_000,
        stdio: ['pipe', 'ignore', 'ignore'],
      });
    } finally {
      this.sweep();
    }
    return lines.map((_, index) => {
      let text: string;
      try {
        text = readFileSync(join(this._root, batch, String(index + 1)), 'utf8');
      } catch {
        throw new Error(`the oracle did not run line ${index + 1}: ${JSON.stringify(lines[index]?.line)}`);
      }
      return text
        .split(RECORD)
        .filter((r) => r !== '')
        .map((record) => {
          const [program = '', ...args] = record.split(FIELD).slice(0, -1);
          return { program, args };
        });
    });
  }

  /** Runs one line (see `runAll`). */
  run(line: string, dialect: 'bash' | 'sh'): Run[] {
    return this.runAll([{ line, dialect }])[0] ?? [];
  }

  /** Ends every process still running inside this throwaway root (by pid, after a timeout). */
  sweep(): void {
    for (let round = 0; round < 5; round += 1) {
      const left = readdirSync('/proc').filter((pid) => {
        if (!/^\d+$/.test(pid)) return false;
        try {
          return readlinkSync(`/proc/${pid}/root`) === this._root;
        } catch {
          return false;
        }
      });
      if (left.length === 0) return;
      for (const pid of left) {
        try {
          process.kill(Number(pid), 'SIGKILL');
        } catch {
          // already gone
        }
      }
    }
  }

  /** Removes the throwaway root. */
  dispose(): void {
    this.sweep();
    rmSync(this._root, { recursive: true, force: true });
  }
}
