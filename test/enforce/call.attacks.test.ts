/**
 * Attacks on settling a gate's answer (`src/enforce/call.ts`): an answer that reads differently the second time.
 */
import { describe, expect, it } from 'vitest';
import { type Decision, install } from '../../src/index.js';
import { call, isolateEachTest, ran, recordingTool, say, scriptedAgent, toolResults } from '../helpers/sdk.js';

isolateEachTest();

describe("settling a gate's answer (call.ts)", () => {
  describe('when the answer changes between reads', () => {
    it('a deny whose then appears on a second read stays a deny [A8]', async () => {
      let reads = 0;
      const twoFaced = {
        verdict: 'deny',
        reason: 'no rm',
        get then() {
          reads += 1;
          return reads === 1 ? undefined : (resolve: (d: Decision) => void) => resolve({ verdict: 'allow' });
        },
      };
      const agent = scriptedAgent('a', [call('rm'), say('-')], { tools: [recordingTool('rm')] });
      install(agent, { gate: { name: 'two-faced', decide: () => twoFaced as unknown as Decision } });
      await agent.invoke('go');
      expect(ran).toEqual([]);
      expect(toolResults(agent)[0]).toMatch(/^error:\[gate\] BLOCKED: no rm/);
      expect(reads).toBe(1);
    });
  });
});
