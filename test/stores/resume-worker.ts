/**
 * One resumer of the racing-resumers test, run as its own process: the agent `a` of the approval tests
 * (rm asks a human), its gate trusting the approvers in `APPROVERS` (JSON), loads a session snapshot, prints
 * `ready`, waits for a line on stdin, resumes with the approval id and prints `ran <n>` (how many times rm
 * ran) or `refused <message>`.
 * Usage: jiti resume-worker.ts <connection string> <snapshot file> <interrupt id> <approval id>
 */
import { readFileSync } from 'node:fs';
import { once } from 'node:events';
import { Agent, tool } from '@strands-agents/sdk';
import { z } from 'zod';
import { ScriptedModel } from '../../fixtures/support/scripted-model.js';
import { install, policyGate } from '../../src/index.js';
import { postgresStore } from '../../src/stores/postgres.js';

const [url, snapshotFile, interruptId, approvalId] = process.argv.slice(2);
const approvers = JSON.parse(process.env.APPROVERS ?? '{}') as Record<string, string>;
let runs = 0;
const rm = tool({
  name: 'rm',
  description: 'delete a file',
  inputSchema: z.object({ path: z.string() }),
  callback: () => {
    runs += 1;
    return 'deleted';
  },
});
const store = postgresStore({ connectionString: url! });
const agent = new Agent({
  id: 'a',
  name: 'a',
  model: new ScriptedModel([{ text: 'done' }]),
  tools: [rm],
  printer: false,
});
install(agent, {
  gate: policyGate(
    { version: 1, rules: [{ id: 'rm-asks', tools: ['rm'], verdict: 'ask', reason: 'deleting needs a human' }] },
    { approvals: { store, approvers } },
  ),
});
agent.loadSnapshot(JSON.parse(readFileSync(snapshotFile!, 'utf8')) as Parameters<Agent['loadSnapshot']>[0]);
process.stdout.write('ready\n');
await once(process.stdin, 'data');
try {
  await agent.invoke([{ interruptResponse: { interruptId: interruptId!, response: approvalId! } }]);
  process.stdout.write(`ran ${runs}\n`);
} catch (error) {
  process.stdout.write(`refused ${runs} ${error instanceof Error ? error.message : String(error)}\n`);
}
await store.close();
process.exit(0);
