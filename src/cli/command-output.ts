/**
 * How every gate-audit command writes commander's own output: help and version to stdout, errors to stderr
 * prefixed with the command's name (`gate-audit merge: …`) in place of commander's `error:`.
 */
import { Command, type OutputConfiguration } from 'commander';
import { CommandNeutralizer } from '../escape.js';

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

/**
 * A stream whose every write passes the final pass for text (`CommandNeutralizer`, `\x5b` and `\x3a`): what
 * it prints, its own lines and what a loading child process prints through it alike, never starts a CI
 * runner's workflow command. Its other members (`isTTY`, …) are the stream's own.
 *
 * @param stream - stderr, or the stdout of a command that prints text only
 */
export function neutralizedStream<T extends { write(chunk: string): unknown }>(stream: T): T {
  const pass = new CommandNeutralizer('text');
  const write = (chunk: string): unknown => stream.write(typeof chunk === 'string' ? pass.push(chunk) : chunk);
  return Object.assign(Object.create(stream) as T, { write });
}

/**
 * The streams of a command with stderr through the final pass, and stdout too when `stdout` says the command
 * prints only text there (a command that prints a report renders it through its format's own final pass, and
 * the `github` format's own command prefixes must reach the runner).
 *
 * @param streams - where the command writes
 * @param options - `stdout`: pass stdout too
 */
export function neutralizedStreams<S extends CommandStreams>(streams: S, options: { stdout?: boolean } = {}): S {
  return {
    ...streams,
    stderr: neutralizedStream(streams.stderr),
    ...(options.stdout === true ? { stdout: neutralizedStream(streams.stdout) } : {}),
  };
}
