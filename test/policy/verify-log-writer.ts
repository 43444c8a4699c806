/**
 * A signed file decision log written by its own process, to be killed with SIGKILL: appends `count`
 * records (a checkpoint every 10), prints `ready`, then appends one record every millisecond (or, with
 * `still`, nothing) until killed.
 * Usage: jiti verify-log-writer.ts <log file> <key file> <count> [still]
 */
import { openDecisionLog } from '../../src/policy/decision-log.js';

const [file, keyFile, countText, still] = process.argv.slice(2);
const log = openDecisionLog({ destination: file!, signing: { keyFile: keyFile!, every: 10 } });
const record = (i: number) =>
  ({ event: 'allow', verdict: 'allow', toolName: 'ls', toolUseId: `t${i}`, path: ['w'], input: { i } }) as const;
let i = 0;
for (; i < Number(countText); i += 1) log.append(record(i), 'g');
process.stdout.write('ready\n');
if (still === undefined) setInterval(() => log.append(record(i++), 'g'), 1);
else setInterval(() => undefined, 60_000);
