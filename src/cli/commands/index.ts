/**
 * The table of `gate-audit`'s subcommands, by the first argument that runs each; any other first argument is
 * the audit's (`commands/audit.ts`). The audit's help lists them from here, in this order.
 */
import { approvals } from './approvals.js';
import { checkPolicy } from './check-policy.js';
import type { CliCommand } from './command.js';
import { init } from './init.js';
import { merge } from './merge.js';
import { observed } from './observed.js';
import { store } from './store.js';
import { verifyLog } from './verify-log.js';

/** Every subcommand, in the order the help lists them. */
export const SUBCOMMANDS: readonly CliCommand[] = [init, checkPolicy, merge, observed, verifyLog, approvals, store];

/**
 * The subcommand a first argument names, or undefined for the audit.
 *
 * @param name - the first argument
 */
export function subcommandOf(name: string | undefined): CliCommand | undefined {
  return SUBCOMMANDS.find((command) => command.name === name);
}
