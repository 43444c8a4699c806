/**
 * The `gate-audit` configuration, validated once at the boundary with zod. The keys are a contract: the
 * CLI reads them from `gate-audit.config.{ts,mjs,js,json}` or the `"gate-audit"` key of `package.json`,
 * and command-line flags override them. Paths and globs in it are relative to the file that holds it.
 */
import { z } from 'zod';
import { minCoverageProblem } from './report/exit.js';
import { FORMAT_NAMES } from './report/render/index.js';

/** Every report format a reporter may name: the renderers, and `tui` for the interactive view. */
export const REPORTER_FORMATS = [...FORMAT_NAMES, 'tui'] as const;

const Pattern = z.string().min(1, 'a pattern cannot be empty');

/** One report to write: a format, and a file (stdout without one). */
export const ReporterSchema = z
  .strictObject({
    format: z.enum(REPORTER_FORMATS),
    outputFile: z.string().min(1, 'a file name cannot be empty').optional(),
  })
  .refine((r) => !(r.format === 'tui' && r.outputFile !== undefined), {
    message: 'the interactive view cannot be written to a file | drop outputFile, or pick another format',
    path: ['outputFile'],
  });

/**
 * One acknowledged node: a remote (A2A) or opaque custom node that cannot be gated in this process, with
 * the reason it is accepted. `path` is the node's path inside its module's root, in `joinPath` form
 * (`procurement/partner-agent`); `module` (relative to the config file) and `export` narrow where it applies.
 */
export const AcceptEntrySchema = z.strictObject({
  module: z.string().min(1).optional(),
  export: z.string().min(1).optional(),
  path: z.string().min(1, 'give the path of the node, e.g. "procurement/partner-agent"'),
  reason: z.string().trim().min(1, 'say why the node is accepted'),
});

/**
 * The process guard `node --import gate-audit/register` starts: `gates` (a module whose default export, or
 * export `gates`, is a gate or a list of gates) or `policy` (a policy file), both relative to the config file;
 * `onUngated` and `accept` as `guardProcess` takes them.
 */
export const ProcessGuardConfigSchema = z
  .strictObject({
    gates: z.string().min(1).optional(),
    policy: z.string().min(1).optional(),
    onUngated: z.enum(['refuse', 'install']).optional(),
    accept: z.array(z.strictObject({ path: z.string().min(1), reason: z.string().trim().min(1) })).optional(),
  })
  .superRefine((value, ctx) => {
    if ((value.gates === undefined) === (value.policy === undefined)) {
      ctx.addIssue({ code: 'custom', message: 'give exactly one of gates (a module) and policy (a policy file)' });
    }
  });

/** The configuration (`z.strictObject`: an unknown key is an error). */
export const ConfigSchema = z.strictObject({
  /** Modules to audit: files, folders or globs (a leading `!` excludes), relative to the config file. */
  include: z.array(Pattern).optional(),
  /** Globs of files that folders, globs and `include` never reach (a file named explicitly is still audited). */
  exclude: z.array(Pattern).optional(),
  /** A ratchet: fail only when coverage is under this percent (0–100). */
  minCoverage: z
    .number()
    .superRefine((value, ctx) => {
      const problem = minCoverageProblem(value);
      if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
    })
    .optional(),
  /** Fail when any gated node runs under a gate with another name. */
  requireGate: z.string().min(1).optional(),
  /**
   * Exported functions to call: `"module#export"` (or a bare export name, for every module), or a record
   * from such names to the argument lists to call it with (one call per list; `[]` declares the function
   * is not a factory, so it is neither called nor listed as not audited).
   */
  factories: z
    .union([z.array(z.string().min(1)), z.record(z.string().min(1), z.array(z.array(z.unknown())))])
    .optional(),
  /** Remote or opaque custom nodes acknowledged with a reason: reported `accepted`, never counted as covered. */
  accept: z.array(AcceptEntrySchema).optional(),
  /** Exit 1 when an exported function was not audited. */
  failOnUnaudited: z.boolean().optional(),
  /** The reports of one run (the modules are loaded once). */
  reporters: z.array(ReporterSchema).optional(),
  /**
   * Entry points to run as the app runs (relative to the config file): each tree they invoke is audited
   * as it stands when invoked, and the invocation is stopped.
   */
  entry: z.array(Pattern).optional(),
  /** The arguments an entry gets after its path (`process.argv.slice(2)`). */
  entryArgs: z.array(z.string()).optional(),
  /** How long, in milliseconds, an entry run waits for another invocation after one (default 2000). */
  entrySettle: z.number().int().positive('expected a positive whole number of milliseconds').optional(),
  /** How long, in milliseconds, importing a module or calling a factory may take (under `entry`: the whole run of one entry). */
  timeout: z.number().int().positive('expected a positive whole number of milliseconds').optional(),
  /** The process guard `--import gate-audit/register` starts (see `ProcessGuardConfigSchema`). */
  processGuard: ProcessGuardConfigSchema.optional(),
});

/** The configuration, as written. */
export type GateAuditConfig = z.input<typeof ConfigSchema>;
