/**
 * A Strands tool call as the gate's request: the SDK's `toolUse` (its input a frozen copy already, without the
 * SDK's background-task marker) and the place of the agent that made it.
 */
import type { ToolCallRequest } from '../../enforce/gate.js';
import type { SeamPlace } from '../installer.js';

/** The parts of the SDK's `toolUse` the request reads. */
export interface StrandsToolUse {
  readonly toolUseId: string;
  readonly name: string;
  /** A frozen copy of the call's input. */
  readonly input: unknown;
}

/**
 * The request a gate decides for a Strands call.
 *
 * @param toolUse - the call, its input copied and frozen
 * @param place - the calling agent's id, name and place, and what kind of tool it is
 * @returns the request, with `framework: 'strands'`
 */
export function strandsRequest(toolUse: StrandsToolUse, place: SeamPlace): ToolCallRequest {
  return { toolUseId: toolUse.toolUseId, toolName: toolUse.name, input: toolUse.input, ...place, framework: 'strands' };
}
