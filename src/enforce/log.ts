/**
 * Gate-audit's log lines: stderr, in the SDK's `field=<value> | message` shape, never on stdout.
 */

/** Severity of a log line. */
export type LogLevel = 'warn' | 'error';

/**
 * Writes one log line to stderr.
 *
 * @param level - severity
 * @param fields - subject fields, printed as `key=<value>`
 * @param message - lowercase message
 */
export function log(level: LogLevel, fields: Record<string, string>, message: string): void {
  const subject = Object.entries(fields)
    .map(([key, value]) => `${key}=<${value}>`)
    .join(', ');
  const line = `[gate-audit] ${level.toUpperCase()} ${subject} | ${message}`;
  if (level === 'error') console.error(line);
  else console.warn(line);
}
