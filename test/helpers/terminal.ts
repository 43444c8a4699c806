/**
 * A real pseudo-terminal for the command's tests: a tmux server of the test file's own (tmux, from Debian; .ci/run
 * installs it), one session per command started, keys in, screen out. Call `open()` before the first command
 * (beforeAll) and `close()` after the last (afterAll).
 */
import { execFileSync } from 'node:child_process';
import { root } from './cli.js';

/** The terminal of one test file. */
export interface Terminal {
  /** Starts the tmux server with a session that outlives every test's (an empty server exits under the next). */
  readonly open: () => void;
  /** Stops the server and every session in it. */
  readonly close: () => void;
  /** Starts `command` in a fresh session of its own, `width` × `height` (no session is reused). */
  readonly start: (width: number, command: string, height?: number) => void;
  /** The current session's screen (`colour`: with its escape sequences; `joined`: wrapped lines joined). */
  readonly screen: (options?: { readonly colour?: boolean; readonly joined?: boolean }) => string;
  /** Sends keys to the current session. */
  readonly keys: (...pressed: string[]) => void;
  /** The screen once `expected` holds of it (checked every 50 ms, `tries` times), else an error naming `what`. */
  readonly waitForScreen: (
    expected: (text: string) => boolean,
    what: string,
    options?: { readonly joined?: boolean; readonly tries?: number },
  ) => Promise<string>;
  /** Ends the current session (nothing when it is gone already). */
  readonly killSession: () => void;
}

/** A terminal on a tmux socket named after `name` and this process. */
export function terminal(name: string): Terminal {
  const socket = `gate-audit-${name}-${process.pid}`;
  const tmux = (...args: string[]): string =>
    execFileSync('tmux', ['-L', socket, ...args], { cwd: root, encoding: 'utf8' });
  let session = '';
  let sessions = 0;
  const quietly = (...args: string[]): void => {
    try {
      tmux(...args);
    } catch {
      // already gone
    }
  };
  const screen: Terminal['screen'] = (options = {}) =>
    tmux('capture-pane', '-t', session, '-p', ...(options.colour ? ['-e'] : []), ...(options.joined ? ['-J'] : []));
  return {
    open: () => void tmux('new-session', '-d', '-s', 'keeper', 'sleep 600'),
    close: () => quietly('kill-server'),
    start: (width, command, height = 30) => {
      sessions += 1;
      session = `run-${sessions}`;
      tmux('new-session', '-d', '-s', session, '-x', String(width), '-y', String(height), command);
    },
    screen,
    keys: (...pressed) => void tmux('send-keys', '-t', session, ...pressed),
    waitForScreen: async (expected, what, options = {}) => {
      for (let i = 0; i < (options.tries ?? 300); i++) {
        const text = screen({ joined: options.joined });
        if (expected(text)) return text;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error(`timed out waiting for ${what}; screen:\n${screen()}`);
    },
    killSession: () => quietly('kill-session', '-t', session),
  };
}
