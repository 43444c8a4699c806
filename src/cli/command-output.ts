/**
 * How every gate-audit command writes commander's own output: help and version to stdout, errors to stderr
 * prefixed with the command's name (`gate-audit merge: …`) in place of commander's `error:`.
 */
import { Command, type OutputConfiguration } from 'commander';

/** Where a command writes. */
export interface CommandStreams {
  readonly stdout: { write(chunk: string): unknown };
  readonly stderr: { write(chunk: string): unknown };
}

/**
 * The output configuration of a command.
 *
 * @param streams - where to write
 * @param name - the command as its errors name it (`gate-audit`, `gate-audit merge`)
 */
export function commandOutput(streams: CommandStreams, name: string): OutputConfiguration {
  return {
    writeOut: (s) => void streams.stdout.write(s),
    writeErr: (s) => void streams.stderr.write(s),
    outputError: (s, write) => write(s.startsWith('error:') ? `${name}: ${s.slice('error: '.length)}` : s),
  };
}

/**
 * A subcommand (`gate-audit check-policy`, `gate-audit approvals list`, …) that throws instead of exiting and
 * writes through `streams`.
 *
 * @param name - its name after `gate-audit`
 * @param streams - where to write
 */
export function subcommand(name: string, streams: CommandStreams): Command {
  return new Command(`gate-audit ${name}`).exitOverride().configureOutput(commandOutput(streams, `gate-audit ${name}`));
}
