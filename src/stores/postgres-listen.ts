/**
 * LISTEN on a dedicated connection, outside the pool (a pooled connection would be handed to other queries
 * and its LISTEN lost). Notifications sent while the connection is down are lost, so after every
 * (re)connection and LISTEN the caller is told `ready` and looks again at what it follows; a dropped
 * connection is retried with a growing pause (up to 5 s) until stopped.
 */
import type pg from 'pg';
import { messageOf } from '../errors.js';

/** What a listener calls. */
export interface ListenHandlers {
  /** A notification on the channel, with its payload. */
  onNotify(payload: string): void;
  /** Listening (again): look at what may have changed while not listening. */
  onReady(): void;
  /** The connection failed or dropped (it is retried). */
  onProblem?(message: string): void;
}

/** A running listener. */
export interface Listener {
  /** Stops listening and closes the connection. */
  stop(): Promise<void>;
}

/** The channel a gate notifies on when it writes a pending approval (payload: its id). */
export const PENDING_CHANNEL = 'gate_audit_pending';
/** The channel an approver notifies on when it writes an answer (payload: the approval id). */
export const ANSWER_CHANNEL = 'gate_audit_answers';

const MAX_PAUSE_MS = 5000;

/**
 * Listens on `channel` over connections made by `connect` until `stop()`.
 *
 * @param connect - makes a new, unconnected client (called once now: what it throws, this throws)
 * @param channel - one of this module's channel names (never data: it is written into the LISTEN statement)
 * @param handlers - what to call
 */
export function listen(connect: () => pg.Client, channel: string, handlers: ListenHandlers): Listener {
  if (!/^[a-z_]+$/.test(channel)) throw new Error(`not a channel name: ${channel}`);
  let stopped = false;
  let client: pg.Client | undefined;
  let wake: (() => void) | undefined;
  const pause = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  // The first client is made now: a maker that cannot make one throws to the caller.
  let first: pg.Client | undefined = connect();
  const loop = async (): Promise<void> => {
    let pauseMs = 100;
    while (!stopped) {
      const current = first ?? connect();
      first = undefined;
      client = current;
      let dropped: () => void = () => undefined;
      const gone = new Promise<void>((resolve) => {
        dropped = resolve;
      });
      current.on('error', (error: Error) => {
        handlers.onProblem?.(messageOf(error));
        dropped();
      });
      current.on('end', () => dropped());
      current.on('notification', (message) => {
        if (message.channel === channel) handlers.onNotify(message.payload ?? '');
      });
      try {
        await current.connect();
        await current.query(`listen ${channel}`);
        pauseMs = 100;
        if (!stopped) handlers.onReady();
        await gone;
      } catch (error) {
        if (!stopped) handlers.onProblem?.(messageOf(error));
      }
      await current.end().catch(() => undefined);
      if (stopped) break;
      await pause(pauseMs);
      pauseMs = Math.min(pauseMs * 2, MAX_PAUSE_MS);
    }
  };
  const running = loop();
  return {
    stop: async () => {
      stopped = true;
      wake?.();
      await client?.end().catch(() => undefined);
      await running;
    },
  };
}
