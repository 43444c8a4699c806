/**
 * `gate-audit/tui`: the interactive coverage view. It reads a `CoverageReport` and nothing else.
 *
 * ```text
 * gate-audit audit · pricing (graph)
 * ███████████████░░░░░ 75% coverage of 4 tool-running nodes · 2 to fix
 * tool-running ✔ 3 gated  ✘ 1 ungated · orchestrators ✘ 1 ungated
 * ──────────────────────────────────────────────
 * >✘ ▾ pricing      graph      ungated    no node guard: …
 *  ✔     collector  agent      gated      GatePlugin installs …
 *  ✘     publisher  agent      ungated    runs its tools without a gate
 * ─── 1/5 ───────────────────────────────────────
 * ✘ pricing — graph, ungated
 * path     pricing
 * reason   no node guard: nodes added or swapped later run unchecked
 * fix      call installMultiagent(root) at startup
 * ↑↓ jk move · enter expand · u not gated · / filter · ? help · q quit
 * ```
 */
import { render } from 'ink';
import { createElement } from 'react';
import type { CoverageReport } from '../report/schema.js';
import { CoverageApp } from './CoverageApp.js';

/** Options of the interactive view. */
export interface CoverageTuiOptions {
  /** The exit code the run returns when the person quits (the one a non-interactive run would give). */
  readonly exitCode: number;
  /** Use colour; by default off when `NO_COLOR` is set. */
  readonly color?: boolean;
  /** Start with only the nodes that are not gated (`--quiet`); `u` shows them all. */
  readonly quiet?: boolean;
  /** Streams, for embedding and tests; the process's by default. */
  readonly stdout?: NodeJS.WriteStream;
  readonly stdin?: NodeJS.ReadStream;
}

/**
 * Shows the report in the terminal until the person quits.
 *
 * @param report - the coverage report to show
 * @param options - exit code, colour, streams
 * @returns the exit code given in the options, once the view is closed
 */
export async function renderCoverageTui(report: CoverageReport, options: CoverageTuiOptions): Promise<number> {
  const color = options.color ?? (process.env.NO_COLOR === undefined || process.env.NO_COLOR === '');
  const instance = render(createElement(CoverageApp, { report, color, quiet: options.quiet === true }), {
    ...(options.stdout === undefined ? {} : { stdout: options.stdout }),
    ...(options.stdin === undefined ? {} : { stdin: options.stdin }),
    exitOnCtrlC: true,
  });
  await instance.waitUntilExit();
  return options.exitCode;
}
