/**
 * OpenAI Codex's command-safety cases, as data: every case of the `#[test]` functions of three Codex sources (Linux
 * only), the answer Codex's tests assert, the verdict `gate-audit:read-only-shell` gives the same command line, and,
 * where the two differ, why. The README's comparison is read from here; `analyze.codex.test.ts` fails when the preset's
 * verdict for a case changes until this file says so. `PROGRAMS` holds the programs Codex lists as safe that
 * read-only-shell adopted (with the options it refuses, each proven against the real binary by
 * `analyze.read-only-real.test.ts`) or left out (with why).
 */
import { quote } from './corpus.js';

/** What Codex's test asserts: `is_known_safe_command` / `is_read_only_subagent_command`, or `dangerous_command_match`. */
export type CodexAnswer = 'safe' | 'not safe' | 'dangerous' | 'not dangerous';

/** A verdict of the gate. */
export type Verdict = 'allow' | 'ask' | 'deny';

/** How the two answers compare. */
export type Agreement = 'agree' | 'we refuse what Codex allows' | 'we allow what Codex refuses';

/** A Codex source file read, at the commit it was read at. */
export interface CodexSource {
  /** The path in openai/codex. */
  readonly path: string;
  /** The commit the file was read at. */
  readonly commit: string;
  /** The function its tests call. */
  readonly function: string;
}

/** One command of a Codex test, with both answers. */
export interface CodexCase {
  /** The source file whose tests assert it. */
  readonly source: SourceName;
  /** The `#[test]` functions that assert it. */
  readonly tests: readonly string[];
  /** The argv Codex judges. */
  readonly argv: readonly string[];
  /** Codex's answer. */
  readonly codex: CodexAnswer;
  /** read-only-shell's verdict for the same line. */
  readonly ours: Verdict;
  /** Why the two differ (only where they do). */
  readonly reason?: string;
}

/** An option read-only-shell refuses for a program it adopted, and what the real binary does with it. */
export interface Refusal {
  /** A command line using it. */
  readonly line: string;
  /** The option (or the form) refused. */
  readonly option: string;
  /** What the line does on this machine: writes a file, runs another program, or fails here (kept for other builds). */
  readonly effect: 'writes' | 'runs' | 'rejected';
  /** Why. */
  readonly why: string;
}

/** A program Codex lists as safe, and what read-only-shell does with it. */
export interface ProgramEntry {
  /** The program (or `git SUBCOMMAND`). */
  readonly program: string;
  /** Where Codex lists it. */
  readonly codex: string;
  /** Adopted (fully or in part) or left out. */
  readonly status: string;
  /** Lines read-only-shell allows; each writes nothing and runs no other program (an exit status other than 0 is given). */
  readonly allowed: readonly (string | { readonly line: string; readonly exits: number })[];
  /** Lines asked for because of an option that writes or runs, with its effect. */
  readonly refused: readonly Refusal[];
  /** Lines asked for that Codex allows and that do no harm: the deliberate disagreements. */
  readonly asked?: readonly string[];
  /** Why the `asked` lines ask. */
  readonly reason?: string;
  /** A write accepted knowingly. */
  readonly note?: string;
}

/** The Codex sources read: the newest stored version of each (no single commit held all three). */
export const SOURCES = {
  'is_safe_command.rs': {
    path: 'codex-rs/shell-command/src/command_safety/is_safe_command.rs',
    commit: '226bd153410084774ffcf7aff9f22930e417f420',
    function: 'is_known_safe_command',
  },
  'is_dangerous_command.rs': {
    path: 'codex-rs/shell-command/src/command_safety/is_dangerous_command.rs',
    commit: '043e574c6b3d5ec86e2f7c12c395e12013fafeca',
    function: 'dangerous_command_match',
  },
  'read_only_commands.rs': {
    path: 'codex-rs/core/src/command_safety/read_only_commands.rs',
    commit: '7f9db2bfdc96c3907b39d3b5d60aadfc1743e04b',
    function: 'is_read_only_subagent_command',
  },
} as const satisfies Record<string, CodexSource>;

/** A source's file name. */
export type SourceName = keyof typeof SOURCES;

/** Tests of those files left out: Windows and PowerShell only. */
export const SKIPPED: readonly { readonly source: SourceName; readonly test: string; readonly why: string }[] = [
  {
    source: 'is_safe_command.rs',
    test: 'windows_powershell_full_path_is_safe',
    why: 'Windows and PowerShell only',
  },
  {
    source: 'is_safe_command.rs',
    test: 'windows_git_full_path_requires_approval',
    why: 'Windows and PowerShell only',
  },
  {
    source: 'is_safe_command.rs',
    test: 'direct_powershell_words_use_windows_safelist',
    why: 'Windows and PowerShell only',
  },
  {
    source: 'is_safe_command.rs',
    test: 'non_windows_safe_classification_does_not_spawn_repo_powershell_path',
    why: 'about a PowerShell path; the argv names a temporary file',
  },
  {
    source: 'is_dangerous_command.rs',
    test: 'direct_powershell_words_return_other_match_on_windows',
    why: 'Windows and PowerShell only',
  },
];

const SAFE = 'is_safe_command.rs';
const DANGEROUS = 'is_dangerous_command.rs';
const READ_ONLY = 'read_only_commands.rs';

/** Codex asks for every git command at this commit; read-only-shell allows git's read subcommands. */
const GIT_READS =
  "Codex asks for every git command at this commit. read-only-shell allows git's read subcommands (status, log, diff, show, blame, branch with a listing option) and asks for the options that run a program, write a file or pick another repository (-c, --config-env, -C, --git-dir, --work-tree, --exec-path, --output, --ext-diff, --show-signature, --format, --pretty, …); it accepts git refreshing .git/index, and it trusts the repository's own configuration (a core.fsmonitor, diff, textconv or filter program named there runs), which none of the commands it allows can write.";

/** Codex gives up on parentheses; the analysis reads a subshell's commands as parts. */
const SUBSHELL =
  'Codex reads only plain commands joined by &&, ||, ; and |, and refuses a line with parentheses. The analysis reads the commands of a subshell as parts and judges each: ls, pwd and echo run in a copy of the shell and write nothing.';

/** rm without -f: not dangerous to Codex, a write to read-only-shell. */
const RM_WRITES =
  'Codex flags only a forced rm as dangerous; a command it does not flag runs unasked where Codex has full access and asks on request. read-only-shell allows no write, and rm deletes files.';

const c = (
  source: SourceName,
  tests: readonly string[],
  argv: readonly string[],
  codex: CodexAnswer,
  ours: Verdict,
  reason?: string,
): CodexCase => ({ source, tests, argv, codex, ours, ...(reason === undefined ? {} : { reason }) });

/** Every case, in the order of the sources' tests; an argv asserted by two tests of a file is one case. */
export const CASES: readonly CodexCase[] = [
  c(SAFE, ['known_safe_examples'], ['ls'], 'safe', 'allow'),
  c(SAFE, ['known_safe_examples'], ['base64'], 'safe', 'allow'),
  c(SAFE, ['known_safe_examples'], ['sed', '-n', '1,5p', 'file.txt'], 'safe', 'allow'),
  c(SAFE, ['known_safe_examples'], ['nl', '-nrz', 'Cargo.toml'], 'safe', 'allow'),
  c(SAFE, ['known_safe_examples'], ['find', '.', '-name', 'file.txt'], 'safe', 'allow'),
  c(SAFE, ['known_safe_examples'], ['numfmt', '1000'], 'safe', 'allow'),
  c(SAFE, ['known_safe_examples'], ['tac', 'Cargo.toml'], 'safe', 'allow'),
  c(SAFE, ['git_commands_require_approval'], ['git', 'status'], 'not safe', 'allow', GIT_READS),
  c(SAFE, ['git_commands_require_approval'], ['git', 'diff', '-p'], 'not safe', 'allow', GIT_READS),
  c(SAFE, ['git_commands_require_approval'], ['git', 'log', '-p', '-1'], 'not safe', 'allow', GIT_READS),
  c(SAFE, ['git_commands_require_approval'], ['git', 'show', '-p', 'HEAD'], 'not safe', 'allow', GIT_READS),
  c(SAFE, ['git_commands_require_approval'], ['git', 'branch', '--show-current'], 'not safe', 'allow', GIT_READS),
  c(
    SAFE,
    ['git_commands_require_approval', 'bash_lc_unsafe_examples'],
    ['bash', '-lc', 'git status'],
    'not safe',
    'allow',
    GIT_READS,
  ),
  c(SAFE, ['git_commands_require_approval'], ['bash', '-lc', 'git log -p -1'], 'not safe', 'allow', GIT_READS),
  c(SAFE, ['cargo_check_is_not_safe'], ['cargo', 'check'], 'not safe', 'ask'),
  c(SAFE, ['zsh_lc_safe_command_sequence'], ['zsh', '-lc', 'ls'], 'safe', 'allow'),
  c(SAFE, ['unknown_or_partial'], ['foo'], 'not safe', 'ask'),
  c(SAFE, ['unknown_or_partial'], ['git', 'fetch'], 'not safe', 'ask'),
  c(SAFE, ['unknown_or_partial'], ['sed', '-n', 'xp', 'file.txt'], 'not safe', 'ask'),
  c(SAFE, ['unknown_or_partial'], ['find', '.', '-name', 'file.txt', '-exec', 'rm', '{}', ';'], 'not safe', 'ask'),
  c(SAFE, ['unknown_or_partial'], ['find', '.', '-name', '*.py', '-execdir', 'python3', '{}', ';'], 'not safe', 'ask'),
  c(SAFE, ['unknown_or_partial'], ['find', '.', '-name', 'file.txt', '-ok', 'rm', '{}', ';'], 'not safe', 'ask'),
  c(SAFE, ['unknown_or_partial'], ['find', '.', '-name', '*.py', '-okdir', 'python3', '{}', ';'], 'not safe', 'ask'),
  c(SAFE, ['unknown_or_partial'], ['find', '.', '-delete', '-name', 'file.txt'], 'not safe', 'ask'),
  c(SAFE, ['unknown_or_partial'], ['find', '.', '-fls', '/etc/passwd'], 'not safe', 'ask'),
  c(SAFE, ['unknown_or_partial'], ['find', '.', '-fprint', '/etc/passwd'], 'not safe', 'ask'),
  c(SAFE, ['unknown_or_partial'], ['find', '.', '-fprint0', '/etc/passwd'], 'not safe', 'ask'),
  c(SAFE, ['unknown_or_partial'], ['find', '.', '-fprintf', '/root/suid.txt', '%#m %u %p\n'], 'not safe', 'ask'),
  c(SAFE, ['base64_output_options_are_unsafe'], ['base64', '-o', 'out.bin'], 'not safe', 'ask'),
  c(SAFE, ['base64_output_options_are_unsafe'], ['base64', '--output', 'out.bin'], 'not safe', 'ask'),
  c(SAFE, ['base64_output_options_are_unsafe'], ['base64', '--output=out.bin'], 'not safe', 'ask'),
  c(SAFE, ['base64_output_options_are_unsafe'], ['base64', '-ob64.txt'], 'not safe', 'ask'),
  c(SAFE, ['ripgrep_rules'], ['rg', 'Cargo.toml', '-n'], 'safe', 'allow'),
  c(SAFE, ['ripgrep_rules'], ['rg', '--search-zip', 'files'], 'not safe', 'ask'),
  c(SAFE, ['ripgrep_rules'], ['rg', '-z', 'files'], 'not safe', 'ask'),
  c(SAFE, ['ripgrep_rules'], ['rg', '--pre', 'pwned', 'files'], 'not safe', 'ask'),
  c(SAFE, ['ripgrep_rules'], ['rg', '--pre=pwned', 'files'], 'not safe', 'ask'),
  c(SAFE, ['ripgrep_rules'], ['rg', '--hostname-bin', 'pwned', 'files'], 'not safe', 'ask'),
  c(SAFE, ['ripgrep_rules'], ['rg', '--hostname-bin=pwned', 'files'], 'not safe', 'ask'),
  c(SAFE, ['bash_lc_safe_examples'], ['bash', '-lc', 'ls'], 'safe', 'allow'),
  c(SAFE, ['bash_lc_safe_examples'], ['bash', '-lc', 'ls -1'], 'safe', 'allow'),
  c(SAFE, ['bash_lc_safe_examples'], ['bash', '-lc', 'grep -R "Cargo.toml" -n'], 'safe', 'allow'),
  c(SAFE, ['bash_lc_safe_examples'], ['bash', '-lc', 'sed -n 1,5p file.txt'], 'safe', 'allow'),
  c(SAFE, ['bash_lc_safe_examples'], ['bash', '-lc', "sed -n '1,5p' file.txt"], 'safe', 'allow'),
  c(SAFE, ['bash_lc_safe_examples'], ['bash', '-lc', 'find . -name file.txt'], 'safe', 'allow'),
  c(
    SAFE,
    ['bash_lc_safe_examples_with_operators'],
    ['bash', '-lc', 'grep -R "Cargo.toml" -n || true'],
    'safe',
    'allow',
  ),
  c(SAFE, ['bash_lc_safe_examples_with_operators'], ['bash', '-lc', 'ls && pwd'], 'safe', 'allow'),
  c(SAFE, ['bash_lc_safe_examples_with_operators'], ['bash', '-lc', "echo 'hi' ; ls"], 'safe', 'allow'),
  c(SAFE, ['bash_lc_safe_examples_with_operators'], ['bash', '-lc', 'ls | wc -l'], 'safe', 'allow'),
  c(SAFE, ['bash_lc_unsafe_examples'], ['bash', '-lc', 'git', 'status'], 'not safe', 'ask'),
  c(SAFE, ['bash_lc_unsafe_examples'], ['bash', '-lc', "'git status'"], 'not safe', 'ask'),
  c(SAFE, ['bash_lc_unsafe_examples'], ['bash', '-lc', 'find . -name file.txt -delete'], 'not safe', 'ask'),
  c(SAFE, ['bash_lc_unsafe_examples'], ['bash', '-lc', 'ls && rm -rf /'], 'not safe', 'ask'),
  c(SAFE, ['bash_lc_unsafe_examples'], ['bash', '-lc', '(ls)'], 'not safe', 'allow', SUBSHELL),
  c(SAFE, ['bash_lc_unsafe_examples'], ['bash', '-lc', 'ls || (pwd && echo hi)'], 'not safe', 'allow', SUBSHELL),
  c(SAFE, ['bash_lc_unsafe_examples'], ['bash', '-lc', 'ls > out.txt'], 'not safe', 'ask'),
  c(DANGEROUS, ['rm_rf_is_dangerous'], ['rm', '-rf', '/'], 'dangerous', 'ask'),
  c(DANGEROUS, ['rm_f_is_dangerous'], ['rm', '-f', '/'], 'dangerous', 'ask'),
  c(DANGEROUS, ['forced_rm_variants_are_dangerous'], ['/bin/rm', '-fr', '/tmp/example'], 'dangerous', 'ask'),
  c(DANGEROUS, ['forced_rm_variants_are_dangerous'], ['rm', '-r', '-f', '/tmp/example'], 'dangerous', 'ask'),
  c(DANGEROUS, ['forced_rm_variants_are_dangerous'], ['rm', '--force', '/tmp/example'], 'dangerous', 'ask'),
  c(DANGEROUS, ['forced_rm_variants_are_dangerous'], ['rm', '/tmp/example', '-f'], 'dangerous', 'ask'),
  c(DANGEROUS, ['forced_rm_variants_are_dangerous'], ['sudo', 'rm', '-rf', '/tmp/example'], 'dangerous', 'ask'),
  c(
    DANGEROUS,
    ['forced_rm_in_complex_shell_syntax_is_dangerous'],
    ['bash', '-lc', 'printf x | rm -rf /tmp/example'],
    'dangerous',
    'ask',
  ),
  c(
    DANGEROUS,
    ['forced_rm_in_complex_shell_syntax_is_dangerous'],
    ['bash', '-lc', 'if test -d /tmp/example; then rm --force /tmp/example; fi'],
    'dangerous',
    'ask',
  ),
  c(
    DANGEROUS,
    ['forced_rm_in_complex_shell_syntax_is_dangerous'],
    ['bash', '-lc', 'rm -rf "$TARGET" >/dev/null'],
    'dangerous',
    'ask',
  ),
  c(
    DANGEROUS,
    ['forced_rm_in_complex_shell_syntax_is_dangerous'],
    ['bash', '-lc', 'for target in /tmp/a /tmp/b; do rm -r -f "$target"; done'],
    'dangerous',
    'ask',
  ),
  c(
    DANGEROUS,
    ['forced_rm_in_complex_shell_syntax_is_dangerous'],
    ['bash', '-lc', 'echo "$(rm -rf /tmp/example)"'],
    'dangerous',
    'ask',
  ),
  c(
    DANGEROUS,
    ['forced_rm_in_complex_shell_syntax_is_dangerous'],
    [
      'bash',
      '-lc',
      "for a in '-C5a25KeRr' '--' '--json' '--bogus'; do HOME=$(mktemp -d) MDE_URL=http://127.0.0.1:1 MDE_TOKEN=x node cli/mde.cjs ls \"$a\" >/tmp/mde-review-out 2>/tmp/mde-review-err; code=$?; printf '%s\\t%s\\t%s\\n' \"$a\" \"$code\" \"$(tr '\\n' ' ' </tmp/mde-review-err)\"; rm -rf \"$HOME\"; done",
    ],
    'dangerous',
    'ask',
  ),
  c(
    DANGEROUS,
    ['non_forced_or_non_literal_rm_is_not_dangerous'],
    ['rm', '-r', '/tmp/example'],
    'not dangerous',
    'ask',
    RM_WRITES,
  ),
  c(
    DANGEROUS,
    ['non_forced_or_non_literal_rm_is_not_dangerous'],
    ['rm', '--', '-f'],
    'not dangerous',
    'ask',
    RM_WRITES,
  ),
  c(
    DANGEROUS,
    ['non_forced_or_non_literal_rm_is_not_dangerous'],
    ['bash', '-lc', "echo 'rm -rf /tmp/example'"],
    'not dangerous',
    'allow',
  ),
  c(
    DANGEROUS,
    ['non_forced_or_non_literal_rm_is_not_dangerous'],
    ['bash', '-lc', 'cmd=rm; $cmd -rf /tmp/example'],
    'not dangerous',
    'ask',
    'Codex reads literal commands only and sees no rm in `$cmd -rf …`. The analysis reads `cmd=rm` as a part that sets a variable for later commands and `$cmd -rf /tmp/example` as an opaque part whose program is not a literal: read-only-shell asks.',
  ),
  c(
    DANGEROUS,
    ['non_forced_or_non_literal_rm_is_not_dangerous'],
    ['bash', '-lc', 'if then rm -rf /tmp/example'],
    'not dangerous',
    'ask',
    'bash cannot parse this line and runs nothing, so Codex does not flag it; the analysis refuses a line it cannot parse, whatever it holds.',
  ),
  c(READ_ONLY, ['allows_read_only_commands'], ['ls'], 'safe', 'allow'),
  c(READ_ONLY, ['allows_read_only_commands'], ['git', 'status'], 'safe', 'allow'),
  c(READ_ONLY, ['allows_read_only_commands'], ['git', 'diff', '--stat'], 'safe', 'allow'),
  c(READ_ONLY, ['allows_read_only_commands'], ['find', '.', '-name', '*.rs'], 'safe', 'allow'),
  c(
    READ_ONLY,
    ['allows_read_only_commands'],
    ['tree'],
    'safe',
    'ask',
    'tree is not installed where this suite runs, so its options that write (-o FILE; -R with -H writes 00Tree.html in each directory) cannot be proven against the binary there: it stays out of the preset and asks.',
  ),
  c(
    READ_ONLY,
    ['allows_read_only_commands'],
    ['head', '-n', '10'],
    'safe',
    'ask',
    "head without a file reads its standard input, and for the bash tool that input is the shell's own script (the tool writes each line and then a line of its own to one bash): head may take part of what comes next, so the analysis makes the part opaque. `head -n 10 FILE` and `… | head -n 10` are allowed.",
  ),
  c(READ_ONLY, ['allows_read_only_commands'], ['tail', '-n', '10'], 'safe', 'allow'),
  c(READ_ONLY, ['allows_read_only_commands'], ['wc', '-l'], 'safe', 'allow'),
  c(READ_ONLY, ['allows_read_only_commands'], ['cat', 'Cargo.toml'], 'safe', 'allow'),
  c(READ_ONLY, ['allows_read_only_commands'], ['file', 'Cargo.toml'], 'safe', 'allow'),
  c(READ_ONLY, ['allows_read_only_commands'], ['stat', 'Cargo.toml'], 'safe', 'allow'),
  c(READ_ONLY, ['rejects_mutating_or_unknown_commands'], ['rm', '-rf'], 'not safe', 'ask'),
  c(READ_ONLY, ['rejects_mutating_or_unknown_commands'], ['git', 'checkout', 'main'], 'not safe', 'ask'),
  c(READ_ONLY, ['rejects_mutating_or_unknown_commands'], ['find', '.', '-delete'], 'not safe', 'ask'),
  c(READ_ONLY, ['rejects_mutating_or_unknown_commands'], ['touch', 'file'], 'not safe', 'ask'),
  c(READ_ONLY, ['allows_bash_lc_with_safe_commands'], ['bash', '-lc', 'ls && git status'], 'safe', 'allow'),
  c(READ_ONLY, ['rejects_bash_lc_with_mutating_commands'], ['bash', '-lc', 'ls && touch file'], 'not safe', 'ask'),
];

/** The programs Codex lists as safe that read-only-shell adopted or left out. */
export const PROGRAMS: readonly ProgramEntry[] = [
  {
    program: 'base64',
    codex: 'is_safe_command.rs (refuses -o and --output)',
    status: 'adopted',
    allowed: [
      'base64 a.txt',
      'base64 -w 0 a.txt',
      'base64 --wrap=10 a.txt',
      'base64 -d b64.txt',
      'base64 -d -i b64.txt',
      'cat a.txt | base64',
    ],
    refused: [
      {
        line: 'base64 -o out.b64 a.txt',
        option: '-o',
        effect: 'rejected',
        why: 'the BSD and macOS base64 write the output there; GNU base64 has no -o and fails',
      },
      {
        line: 'base64 --output=out.b64 a.txt',
        option: '--output',
        effect: 'rejected',
        why: 'the BSD and macOS base64 write the output there; GNU base64 has no --output and fails',
      },
    ],
  },
  {
    program: 'expr',
    codex: 'is_safe_command.rs',
    status: 'adopted',
    allowed: ['expr 1 + 2', 'expr length abcd', "expr abc : 'a\\(.\\)'", 'expr substr abcdef 2 3'],
    refused: [],
  },
  {
    program: 'paste',
    codex: 'is_safe_command.rs',
    status: 'adopted',
    allowed: ['paste a.txt b.txt', 'paste -s -d, a.txt', 'paste - - < a.txt', 'cat a.txt | paste -sd+'],
    refused: [],
  },
  {
    program: 'rev',
    codex: 'is_safe_command.rs',
    status: 'adopted',
    allowed: ['rev a.txt', 'cat a.txt | rev'],
    refused: [],
  },
  {
    program: 'numfmt',
    codex: 'is_safe_command.rs (Linux)',
    status: 'adopted',
    allowed: [
      'numfmt --to=si 1000 2000000',
      'numfmt --from=iec 1K',
      'numfmt --format=%.3f --round=down 2.5',
      'numfmt --header --field=2 --to=iec < nums.txt',
      'cat nums.txt | numfmt --header --field=2 --invalid=ignore',
    ],
    refused: [],
  },
  {
    program: 'tac',
    codex: 'is_safe_command.rs (Linux)',
    status: 'adopted',
    allowed: ['tac a.txt', 'cat a.txt | tac', 'tac -s , b.txt', "tac -b -r -s '[0-9]' a.txt"],
    refused: [],
    note: 'tac copies input it cannot seek (a pipe) to a temporary file in $TMPDIR and unlinks it at once: a write accepted knowingly, nothing stays',
  },
  {
    program: 'file',
    codex: 'read_only_commands.rs',
    status: 'adopted',
    allowed: [
      'file a.txt',
      'file -b --mime-type a.txt',
      'file -i -k -L a.txt b.txt',
      'file -m magic a.txt',
      'file -c -m magic',
      'file -f list.txt',
      'file -s a.txt',
      'file a.Z',
      'file --extension -N -0 a.txt',
    ],
    refused: [
      {
        line: 'file -C -m magic',
        option: '-C',
        effect: 'writes',
        why: 'compiles the magic file given with -m into magic.mgc',
      },
      {
        line: 'file --compile -m magic',
        option: '--compile',
        effect: 'writes',
        why: 'compiles the magic file given with -m into magic.mgc',
      },
      {
        line: 'file -z a.Z',
        option: '-z',
        effect: 'runs',
        why: 'runs a decompressor found on PATH for a format the library does not read itself',
      },
      {
        line: 'file -Z a.Z',
        option: '-Z',
        effect: 'runs',
        why: 'runs a decompressor found on PATH for a format the library does not read itself',
      },
      {
        line: 'file --uncompress a.Z',
        option: '--uncompress',
        effect: 'runs',
        why: 'runs a decompressor found on PATH',
      },
      {
        line: 'file --uncompress-noreport a.Z',
        option: '--uncompress-noreport',
        effect: 'runs',
        why: 'runs a decompressor found on PATH',
      },
      {
        line: 'file -p a.txt',
        option: '-p',
        effect: 'writes',
        why: "sets the times of each file it read back, which changes them (to whole seconds) and the file's ctime",
      },
      {
        line: 'file --preserve-date a.txt',
        option: '--preserve-date',
        effect: 'writes',
        why: 'sets the times of each file it read back',
      },
    ],
  },
  {
    program: 'uniq',
    codex: 'is_safe_command.rs',
    status: 'adopted without operands',
    allowed: [
      'cat a.txt | uniq',
      'cat a.txt | uniq -c',
      'cat a.txt | uniq -d -i',
      'cat a.txt | uniq -f1 -s1 -w3 --group',
      'tac a.txt | uniq -u',
    ],
    refused: [
      {
        line: 'uniq a.txt out.txt',
        option: 'OUT',
        effect: 'writes',
        why: 'uniq IN OUT writes OUT',
      },
    ],
    asked: ['uniq a.txt', 'uniq -f 1'],
    reason:
      '`uniq IN OUT` writes OUT and no condition counts operands, so uniq is allowed with no operand at all (reading a pipe); `uniq FILE` and an option value given as a word of its own (`-f 1`) ask.',
  },
  {
    program: 'git branch',
    codex:
      'not at this commit: Codex asks for every git command at this commit (is_safe_command.rs at 55dfa3cf allowed `git branch` with only listing options).',
    status: 'adopted with a listing option',
    allowed: [
      'git branch --list',
      "git branch --list 'f*'",
      'git branch --show-current',
      'git branch -a',
      'git branch -r',
      'git branch --all -v',
      'git branch -vv --list',
      'git branch --contains HEAD~1',
      'git branch --no-contains HEAD',
      'git branch --merged main',
      'git branch --no-merged feature',
      'git branch --points-at HEAD',
      'git branch --show-current newb',
      'git branch --list newb',
      'git branch --contains HEAD newb',
      'git branch --points-at HEAD newb',
      'git branch --list --sort=-refname --column=always',
      {
        line: 'git branch -a newb',
        exits: 128,
      },
      {
        line: 'git branch -r newb',
        exits: 128,
      },
    ],
    refused: [
      {
        line: 'git branch -d feature',
        option: '-d',
        effect: 'writes',
        why: 'deletes the branch',
      },
      {
        line: 'git branch -D feature',
        option: '-D',
        effect: 'writes',
        why: 'deletes the branch, merged or not',
      },
      {
        line: 'git branch --delete feature',
        option: '--delete',
        effect: 'writes',
        why: 'deletes the branch',
      },
      {
        line: 'git branch -m feature renamed',
        option: '-m',
        effect: 'writes',
        why: 'renames the branch',
      },
      {
        line: 'git branch -M feature renamed',
        option: '-M',
        effect: 'writes',
        why: 'renames the branch, even over another',
      },
      {
        line: 'git branch --move feature renamed',
        option: '--move',
        effect: 'writes',
        why: 'renames the branch',
      },
      {
        line: 'git branch -c feature copied',
        option: '-c',
        effect: 'writes',
        why: 'copies the branch',
      },
      {
        line: 'git branch -C feature copied',
        option: '-C',
        effect: 'writes',
        why: 'copies the branch, even over another',
      },
      {
        line: 'git branch --copy feature copied',
        option: '--copy',
        effect: 'writes',
        why: 'copies the branch',
      },
      {
        line: 'git branch -f feature',
        option: '-f',
        effect: 'writes',
        why: 'moves an existing branch',
      },
      {
        line: 'git branch --force feature',
        option: '--force',
        effect: 'writes',
        why: 'moves an existing branch',
      },
      {
        line: 'git branch -u origin/main',
        option: '-u',
        effect: 'writes',
        why: 'sets the upstream in .git/config',
      },
      {
        line: 'git branch --set-upstream-to=origin/main',
        option: '--set-upstream-to',
        effect: 'writes',
        why: 'sets the upstream in .git/config',
      },
      {
        line: 'git branch --unset-upstream feature',
        option: '--unset-upstream',
        effect: 'writes',
        why: 'removes the upstream from .git/config',
      },
      {
        line: 'git branch -t tracked origin/main',
        option: '-t',
        effect: 'writes',
        why: 'creates a branch and its upstream',
      },
      {
        line: 'git branch --track tracked origin/main',
        option: '--track',
        effect: 'writes',
        why: 'creates a branch and its upstream',
      },
      {
        line: 'git branch --no-track plain origin/main',
        option: '--no-track',
        effect: 'writes',
        why: 'creates a branch',
      },
      {
        line: 'git branch --create-reflog logged',
        option: '--create-reflog',
        effect: 'writes',
        why: 'creates a branch and its reflog',
      },
      {
        line: 'git branch --recurse-submodules sub',
        option: '--recurse-submodules',
        effect: 'writes',
        why: 'creates a branch (here and in submodules)',
      },
      {
        line: 'git branch --edit-description',
        option: '--edit-description',
        effect: 'runs',
        why: 'runs an editor',
      },
      {
        line: 'git branch --list --no-list newb',
        option: '--no-list',
        effect: 'writes',
        why: 'undoes --list, so the word after it names a branch to create',
      },
      {
        line: 'git branch --show-current --no-show-current newb',
        option: '--no-show-current',
        effect: 'writes',
        why: 'undoes --show-current, so the word after it names a branch to create',
      },
      {
        line: 'git branch --points-at HEAD --no-points-at newb',
        option: '--no-points-at',
        effect: 'writes',
        why: 'undoes --points-at, so the word after it names a branch to create',
      },
      {
        line: 'git branch newb',
        option: 'NAME',
        effect: 'writes',
        why: 'creates the branch',
      },
      {
        line: 'git branch -v newb',
        option: '-v NAME',
        effect: 'writes',
        why: '-v does not make git branch list: it creates the branch',
      },
    ],
    asked: ['git branch', 'git branch -v', 'git branch -l'],
    reason:
      '`git branch` with no option, or with only -v, lists, but a word after it is a branch to create, and no condition tells `git branch` from `git branch branch`: they ask. -l asks too: before git 2.20 it was --create-reflog.',
  },
  {
    program: 'git blame',
    codex: 'read_only_commands.rs',
    status: 'adopted',
    allowed: [
      'git blame f.txt',
      'git blame -L 1,1 f.txt',
      'git blame --porcelain f.txt',
      'git blame -w -M -s -e -n f.txt',
      'git blame --contents g.txt f.txt',
      'git blame HEAD~1 -- f.txt',
      'git blame --line-porcelain --root f.txt',
      'git blame --ignore-rev HEAD f.txt',
    ],
    refused: [
      {
        line: 'git blame --output=out.txt f.txt',
        option: '--output',
        effect: 'writes',
        why: 'writes its output to the file (read-only-shell:git-options-that-run-or-write, for every git command)',
      },
    ],
    asked: ['git blame -C f.txt'],
    reason:
      "git blame's -C (find copied lines) and -c (annotate output) ask: the git rule that asks for `git -C DIR` and `git -c NAME=VALUE` reads every word of the command.",
  },
  {
    program: 'cd',
    codex: 'is_safe_command.rs',
    status: 'left out',
    allowed: [],
    refused: [],
    asked: ['cd src', 'cd src && ls'],
    reason:
      'cd changes the directory every later command of the line (and of later calls, for the bash tool) runs in, so the analysis keeps it a state part and every path after it relative to an unknown directory; read-only-shell allows no line holding it.',
  },
  {
    program: 'tree',
    codex: 'read_only_commands.rs',
    status: 'left out',
    allowed: [],
    refused: [],
    asked: ['tree', 'tree -L 2'],
    reason:
      'tree is not installed where this suite runs, so its options that write (-o FILE; -R with -H writes 00Tree.html in each directory) cannot be proven against the binary: it stays out and asks.',
  },
];

/**
 * The command line both tools run for an argv: the script of `bash -lc SCRIPT` (Codex reads `zsh` as `bash`), else
 * the words single-quoted and joined.
 */
export function lineOf(argv: readonly string[]): string {
  const [shell, flag, script] = argv;
  if (argv.length === 3 && (shell === 'bash' || shell === 'zsh') && flag === '-lc' && script !== undefined)
    return script;
  return argv.map(quote).join(' ');
}

/** How Codex's answer and a verdict compare: Codex allows what it calls safe or not dangerous. */
export function agreement(codex: CodexAnswer, ours: Verdict): Agreement {
  const codexAllows = codex === 'safe' || codex === 'not dangerous';
  if (codexAllows === (ours === 'allow')) return 'agree';
  return codexAllows ? 'we refuse what Codex allows' : 'we allow what Codex refuses';
}

/** The counts of the comparison. */
export interface Counts {
  /** Cases compared. */
  readonly cases: number;
  /** Both allow, or both refuse. */
  readonly agree: number;
  /** Codex allows, read-only-shell asks or denies. */
  readonly weRefuse: number;
  /** read-only-shell allows, Codex refuses. */
  readonly weAllow: number;
}

/** Counts the cases by how the recorded answers compare. */
export function tally(cases: readonly CodexCase[]): Counts {
  const of = (kind: Agreement): number => cases.filter((k) => agreement(k.codex, k.ours) === kind).length;
  return {
    cases: cases.length,
    agree: of('agree'),
    weRefuse: of('we refuse what Codex allows'),
    weAllow: of('we allow what Codex refuses'),
  };
}
