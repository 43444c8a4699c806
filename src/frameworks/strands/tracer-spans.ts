/**
 * The SDK's tracer spans an agent or an orchestrator holds in private state (`_tracer._loopSpan`,
 * `_tracer._multiAgentSpan`), read without running any of their code. Apart from `sdk-internals.ts` because it
 * imports nothing of the SDK: `gate-audit/otel` reads them for Strands decisions and loads in a LangGraph.js-only
 * app too.
 */
import { dataField, type FieldRead, isObjectLike } from '../../walker/safe-read.js';

function tracerSpan(owner: unknown, key: '_loopSpan' | '_multiAgentSpan'): FieldRead {
  const tracer = dataField(owner, '_tracer');
  if (!tracer.ok) return tracer;
  const span = dataField(tracer.value, key);
  if (!span.ok) return span;
  return isObjectLike(span.value) ? span : { ok: false, why: 'absent' };
}

/** The agent's current loop-cycle span (`_tracer._loopSpan`): the SDK parents tool spans to it, never making it active. */
export function agentLoopSpan(agent: unknown): FieldRead {
  return tracerSpan(agent, '_loopSpan');
}

/** A Graph's or Swarm's invoke span (`_tracer._multiAgentSpan`): the parent of its node spans. */
export function orchestratorSpan(orchestrator: unknown): FieldRead {
  return tracerSpan(orchestrator, '_multiAgentSpan');
}
