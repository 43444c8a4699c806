/**
 * The CommonJS builds of `langchain` and `@langchain/langgraph` have classes of their own (their `ToolNode` is not
 * the ES module build's): install recognises their tool nodes by shape, gates them, and a refused call never runs,
 * for `createAgent`'s tool node and the prebuilt one of `createReactAgent`.
 */
import { createRequire } from 'node:module';
import type * as CoreTools from '@langchain/core/tools';
import type * as Zod from 'zod';
import { describe, expect, it } from 'vitest';
import { audit, denyAll, installMultiagent } from '../../../src/index.js';
import { ScriptedChatModel } from '../../helpers/langgraph.js';

const require = createRequire(import.meta.url);

interface Invokable {
  invoke(input: unknown): Promise<unknown>;
}
const prebuilt = require('@langchain/langgraph/prebuilt') as {
  createReactAgent(options: Record<string, unknown>): Invokable;
  ToolNode: unknown;
};
const esmToolNode = (await import('@langchain/langgraph/prebuilt')).ToolNode;
const { createAgent } = require('langchain') as { createAgent: (options: Record<string, unknown>) => Invokable };
const { tool } = require('@langchain/core/tools') as typeof CoreTools;
const { z } = require('zod') as typeof Zod;

/** A CommonJS-build tool that notes each run. */
const recording = (ran: string[]) =>
  tool(
    (input: unknown) => {
      ran.push(JSON.stringify(input));
      return 'ok';
    },
    { name: 'rm', description: 'remove a file', schema: z.object({ path: z.string() }) },
  );

const model = (): ScriptedChatModel =>
  new ScriptedChatModel([{ calls: [{ name: 'rm', args: { path: '/x' } }] }, { say: 'done' }]);

describe('installMultiagent on the CommonJS builds of LangGraph.js and langchain', () => {
  describe('when their classes are loaded beside the ES module build', () => {
    it('are other classes than the ES module build', () => {
      expect(prebuilt.ToolNode).not.toBe(esmToolNode);
    });
  });

  describe('when an agent of the CommonJS build is installed', () => {
    it.each([
      [
        'createReactAgent (the prebuilt ToolNode)',
        (ran: string[]) => prebuilt.createReactAgent({ llm: model(), tools: [recording(ran)], name: 'react' }),
      ],
      [
        "createAgent (langchain's ToolNode)",
        (ran: string[]) => createAgent({ model: model(), tools: [recording(ran)], name: 'agent' }),
      ],
    ])('%s: gated, fully covered, and a denied call never runs', async (_, build) => {
      const ran: string[] = [];
      const root = build(ran);
      expect(audit(root).summary.ungated).toBeGreaterThan(0);
      installMultiagent(root, { gate: denyAll() });
      expect(audit(root).summary).toMatchObject({ ungated: 0, coverage: 1 });
      await root.invoke({ messages: [{ role: 'user', content: 'go' }] });
      expect(ran).toEqual([]);
    });
  });
});
