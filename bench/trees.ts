/**
 * Generated orchestrator trees for the install and audit benchmarks: nested Graphs and Swarms, agents used
 * as tools, exactly `units × 100` agents.
 */
import { Agent } from '@strands-agents/sdk';
import { Graph, Swarm } from '@strands-agents/sdk/multiagent';
import { ScriptedModel, say } from '../fixtures/support/scripted-model.js';

let counter = 0;

function agent(tools: Agent[] = []): Agent {
  const id = `a${counter++}`;
  return new Agent({ id, name: id, model: new ScriptedModel([say('x')]), printer: false, tools });
}

/** An agent with a helper agent as its tool (2 agents). */
const withHelper = (): Agent => agent([agent()]);

/** 10 agents as nodes, every other one with a helper as a tool: 15 agents. */
function team(id: string): Swarm {
  const nodes = Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? withHelper() : agent()));
  return new Swarm({ id, nodes, maxSteps: 10 });
}

/**
 * One unit of 100 agents: a Graph holding 4 Swarms (60), a nested Graph (a Swarm, 5 agents with helpers and
 * 5 plain agents: 30) and 10 plain agents.
 */
function unit(u: number): Graph {
  const nested = new Graph({
    id: `u${u}-inner`,
    nodes: [
      team(`u${u}-inner-team`),
      ...Array.from({ length: 5 }, withHelper),
      ...Array.from({ length: 5 }, () => agent()),
    ],
    edges: [],
    maxSteps: 10,
  });
  return new Graph({
    id: `u${u}`,
    nodes: [...[0, 1, 2, 3].map((t) => team(`u${u}-team${t}`)), nested, ...Array.from({ length: 10 }, () => agent())],
    edges: [],
    maxSteps: 10,
  });
}

/** A tree of `agents` agents (a multiple of 100): a root Graph of units, every other unit inside a Swarm. */
export function buildTree(agents: number): Graph {
  const units = Array.from({ length: agents / 100 }, (_, u) => unit(u));
  const nodes = units.map((g, u) =>
    u % 2 === 0 ? g : new Swarm({ id: `wrap${u}`, nodes: [{ agent: g } as never], maxSteps: 10 }),
  );
  return new Graph({ id: `root-${agents}`, nodes: nodes, edges: [], maxSteps: 10 });
}
