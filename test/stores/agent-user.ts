/**
 * Running an app as the agent's own OS user, apart from the approver's: `nobody` when the tests run as root
 * (CI), through `runuser`. Then the approver's private key (a 0700 folder of root) is out of the agent's
 * reach, and a keyring owned by root (0644) is one the agent cannot write, as in a real deployment.
 */
import { type SpawnSyncReturns, spawnSync } from 'node:child_process';
import { chownSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Whether the tests run as root (and so can run the agent as another user). */
export const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;

/** Why the cases that need two OS users are skipped when the tests do not run as root. */
export const NEEDS_ROOT =
  'the agent runs as another OS user (nobody) through runuser, which needs root (CI runs as root)';

const AGENT_USER = 'nobody';

/**
 * A fresh folder the agent's user owns (for its snapshot and files).
 *
 * @param prefix - the folder name's start
 */
export function agentFolder(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  if (asRoot) chownSync(dir, 65534, 65534);
  return dir;
}

/**
 * The program and arguments that run a command as the agent's user, with exactly the environment given
 * (plus PATH): through `runuser` and `env -i` as root, the command itself otherwise.
 *
 * @param command - the program
 * @param args - its arguments
 * @param env - the environment
 */
export function asAgent(
  command: string,
  args: readonly string[],
  env: Readonly<Record<string, string>>,
): { program: string; argv: string[]; env: Record<string, string> } {
  const full = { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env };
  return asRoot
    ? {
        program: 'runuser',
        argv: [
          '-u',
          AGENT_USER,
          '--',
          'env',
          '-i',
          ...Object.entries(full).map(([k, v]) => `${k}=${v}`),
          command,
          ...args,
        ],
        env: full,
      }
    : { program: command, argv: [...args], env: full };
}

/**
 * Runs a command as the agent's user and waits for it.
 *
 * @param command - the program
 * @param args - its arguments
 * @param options - the working folder and the environment
 */
export function runAsAgent(
  command: string,
  args: readonly string[],
  options: { readonly cwd: string; readonly env: Readonly<Record<string, string>> },
): SpawnSyncReturns<string> {
  const { program, argv, env } = asAgent(command, args, options.env);
  return spawnSync(program, argv, { cwd: options.cwd, env, encoding: 'utf8', timeout: 90_000 });
}
