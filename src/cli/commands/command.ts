/**
 * What a `gate-audit` command is: a name (the first argument), its lines in the audit's help, whether its
 * stdout is text only, and a function from its arguments to an exit code. The table of subcommands
 * (`commands/index.ts`) holds one per subcommand; the audit is the default. A command imports its code inside
 * `run`, so that a command that never loads the SDK (merge, observed, verify-log) does not load it with the table.
 */

/** Where the command writes. */
export interface CliStreams {
  readonly stdout: { write(chunk: string): unknown; readonly isTTY?: boolean };
  readonly stderr: { write(chunk: string): unknown };
  /** The terminal's input, for the interactive view; without a TTY here the view is not used. */
  readonly stdin?: { readonly isTTY?: boolean };
}

/** What the command may read from its surroundings. */
export interface CliContext {
  readonly cwd?: string;
  /** The environment (for `CI`); no interactive view runs in CI. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Ends `--watch` (the process's SIGINT does too). */
  readonly signal?: AbortSignal;
  /** Set in the audit child: subcommands that load modules run here rather than in another child. */
  readonly inChild?: boolean;
}

/** What a command runs with. */
export interface CommandShell {
  /** Where it writes (stderr, and stdout for a text-only command, already through the final pass). */
  readonly streams: CliStreams;
  /** The working directory. */
  readonly cwd: string;
  /** The environment, the signal, whether this is the audit child. */
  readonly context: CliContext;
}

/** A subcommand of `gate-audit`. */
export interface CliCommand {
  /** The first argument that runs it (`merge`). */
  readonly name: string;
  /** Its lines under "Commands:" in `gate-audit --help`. */
  readonly help: readonly string[];
  /** It prints only text on stdout, so its stdout passes the final pass for text too. */
  readonly textOnly: boolean;
  /**
   * Runs it.
   *
   * @param argv - the arguments after its name
   * @param shell - streams, working directory, context
   * @returns the exit code
   */
  run(argv: readonly string[], shell: CommandShell): Promise<number>;
}
