/**
 * What the SDK writes into a tool call's input of its own accord. A leaf with no imports: the input digest of both
 * frameworks reads it, and a LangGraph.js-only app loads no part of the Strands SDK through it.
 */

/** Input key the SDK adds to agentic background calls; it is stripped before the tool runs. */
export const BACKGROUND_MARKER = '_background_execution';
