/**
 * `node --import gate-audit/register app.js`: the process guard from the first import. Before anything else is
 * imported it registers the guard's loader hooks (every copy of `@strands-agents/sdk`, and each LangGraph.js copy's
 * `Pregel`, is handed to the guard as it loads), then reads `processGuard` from the project's configuration (found
 * from the working directory upwards, as the CLI finds it), imports its gates, and starts the guard. It runs in a
 * LangGraph.js-only app too: the Strands SDK's part of the guard is loaded only where the SDK is installed. Anything wrong (no configuration, no
 * `processGuard` in it, gates that cannot be imported or are no gates) ends the process with one line and
 * exit code 2 before the app runs: a process that asked for the guard never runs without it.
 */
import { messageOf } from '../errors.js';

try {
  const { startRegisteredGuard } = await import('./registered-guard.js');
  await startRegisteredGuard(process.cwd());
} catch (error) {
  process.stderr.write(`gate-audit/register: ${messageOf(error)}\n`);
  process.exit(2);
}
