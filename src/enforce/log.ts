/**
 * Gate-audit's log lines: stderr, in the SDK's `field=<value> | message` shape, never on stdout.
 *
 * Field values and the message often carry data chosen by someone else (a tool name picked by a model, an
 * agent id from a config file), so both are neutralised: a log line stays one line, moves no cursor and
 * cannot forge a field or a second `[gate-audit]` line.
 */
import { visible, visibleField } from '../escape.js';

/** Severity of a log line. */
export type LogLevel = 'warn' | 'error';

/**
 * The text of one log line, neutralised.
 *
 * @param level - severity
 * @param fields - subject fields, printed as `key=<value>`
 * @param message - lowercase message
 */
export function logLine(level: LogLevel, fields: Record<string, string>, message: string): string {
  const subject = Object.entries(fields)
    .map(([key, value]) => `${visibleField(key)}=<${visibleField(value)}>`)
    .join(', ');
  return `[gate-audit] ${level.toUpperCase()} ${subject} | ${visible(message)}`;
}

/**
 * Writes one log line to stderr.
 *
 * @param level - severity
 * @param fields - subject fields, printed as `key=<value>`
 * @param message - lowercase message
 */
export function log(level: LogLevel, fields: Record<string, string>, message: string): void {
  const line = logLine(level, fields, message);
  if (level === 'error') console.error(line);
  else console.warn(line);
}
