/**
 * Real LangGraph.js parts for tests: a scripted chat model (a `BaseChatModel` subclass, the one double) and
 * tools that record what ran. No network.
 */
import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, type BaseMessage } from '@langchain/core/messages';
import type { ChatResult } from '@langchain/core/outputs';
import { type StructuredToolInterface, tool } from '@langchain/core/tools';
import { z } from 'zod';

let messageIds = 0;

/** One scripted turn: the model answers with these tool calls, or with text. */
export type Turn =
  | { readonly calls: readonly { name: string; args: Record<string, unknown> }[] }
  | { readonly say: string };

/** A chat model that answers from a script, one turn per call (each message with an id of its own). */
export class ScriptedChatModel extends BaseChatModel {
  private _turn = 0;

  constructor(private readonly _script: readonly Turn[]) {
    super({});
  }

  _llmType(): string {
    return 'scripted';
  }

  override bindTools(): this {
    return this;
  }

  _generate(_messages: BaseMessage[]): Promise<ChatResult> {
    const turn = this._script[Math.min(this._turn++, this._script.length - 1)]!;
    messageIds += 1;
    const message =
      'say' in turn
        ? new AIMessage({ content: turn.say, id: `m${messageIds}` })
        : new AIMessage({
            content: '',
            id: `m${messageIds}`,
            tool_calls: turn.calls.map((c, i) => ({
              name: c.name,
              args: c.args,
              id: `call-${messageIds}-${i}`,
              type: 'tool_call' as const,
            })),
          });
    return Promise.resolve({
      generations: [{ message, text: typeof message.content === 'string' ? message.content : '' }],
    });
  }
}

/** A model that calls one tool once, then says done. */
export function callsOnce(name: string, args: Record<string, unknown>): ScriptedChatModel {
  return new ScriptedChatModel([{ calls: [{ name, args }] }, { say: 'done' }]);
}

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
