/**
 * Real LangGraph.js parts for tests: a scripted chat model (a `BaseChatModel` subclass, the one double) and
 * tools that record what ran. No network.
 */
import type { BaseMessage } from '@langchain/core/messages';
import { type StructuredToolInterface, tool } from '@langchain/core/tools';
import { z } from 'zod';

export { callsOnce, ScriptedChatModel, type Turn } from '../../fixtures/support/scripted-chat-model.js';

/** A tool that records each run as `name(args)` into `ran`. */
export function recordingTool(name: string, ran: string[]): StructuredToolInterface {
  return tool(
    (args: Record<string, unknown>) => {
      ran.push(`${name}(${JSON.stringify(args)})`);
      return Promise.resolve(`${name} ok`);
    },
    { name, description: `${name} tool`, schema: z.object({ path: z.string().optional(), q: z.string().optional() }) },
  );
}

/** Text of every message of a result. */
export function messagesOf(result: { messages: BaseMessage[] }): string[] {
  return result.messages.map(
    (m) => `${m.getType()}:${typeof m.content === 'string' ? m.content : JSON.stringify(m.content)}`,
  );
}
