/**
 * `Agent` subclasses: one that only adds a constructor or new methods is gated like a plain Agent; one that
 * replaces any member of Agent (a method, or a class field, which is an own property of the instance) is
 * refused, naming the member, at install and at the node guard.
 */
import { Agent, type AgentConfig } from '@strands-agents/sdk';
import { Graph } from '@strands-agents/sdk/multiagent';
import { describe, expect, it } from 'vitest';
import { allowAll, audit, installMultiagent, isGated, UngateableError } from '../../src/index.js';
import { call, isolateEachTest, ran, recordingTool, runOrchestrator, say, ScriptedModel } from '../helpers/sdk.js';

isolateEachTest();

const config = (id: string): AgentConfig => ({
  id,
  printer: false,
  model: new ScriptedModel([call('rm'), say('-')]),
  tools: [recordingTool('rm')],
});

class KbAgent extends Agent {
  constructor() {
    super(config('kb'));
  }
  /** A new method: replaces nothing of Agent. */
  describeKnowledge(): string {
    return 'kb';
  }
}

describe('installMultiagent of an Agent subclass', () => {
  describe('when the subclass only adds a constructor and new methods', () => {
    it('gates it, and its denied tool never runs', async () => {
      const kb = new KbAgent();
      const graph = new Graph({ id: 'g', nodes: [kb], edges: [] });
      installMultiagent(graph, { gate: { name: 'deny', decide: () => ({ verdict: 'deny', reason: 'no' }) } });
      expect(isGated(kb)).toBe(true);
      expect(audit(graph).nodes.find((n) => n.id === 'kb')?.status).toBe('gated');
      await runOrchestrator(graph);
      expect(ran).toEqual([]);
    });
  });

  describe('when the subclass replaces a member of Agent', () => {
    const overriding: [string, () => Agent, string][] = [
      [
        'a method override',
        () =>
          new (class extends Agent {
            // eslint-disable-next-line require-yield, @typescript-eslint/require-await
            override async *stream(): ReturnType<Agent['stream']> {
              throw new Error('never');
            }
          })(config('m')),
        'stream',
      ],
      [
        'a class field named like a member (an own property of the instance)',
        () =>
          new (class extends Agent {
            // What a class field compiles to: an own, enumerable, writable property defined on the instance.
            constructor(c: ConstructorParameters<typeof Agent>[0]) {
              super(c);
              Object.defineProperty(this, 'executeTools', {
                value: Reflect.get(Agent.prototype, 'executeTools'),
                enumerable: true,
                writable: true,
                configurable: true,
              });
            }
          })(config('f')),
        'executeTools',
      ],
      [
        'a getter that shadows a member',
        () =>
          new (class extends Agent {
            override get toolRegistry(): Agent['toolRegistry'] {
              return super.toolRegistry;
            }
          })(config('g')),
        'toolRegistry',
      ],
    ];
    for (const [what, make, member] of overriding) {
      it(`with ${what} is refused, naming "${member}"`, () => {
        const agent = make();
        const graph = new Graph({ id: 'g', nodes: [agent], edges: [] });
        expect(() => installMultiagent(graph, { gate: allowAll() })).toThrow(UngateableError);
        expect(audit(graph).nodes.find((n) => n.path.length === 2)?.reason).toContain(`"${member}"`);
      });
    }
  });

  describe('when the instance gets an own member after install', () => {
    it('the node guard cancels it', async () => {
      const kb = new KbAgent();
      const graph = new Graph({ id: 'g', nodes: [kb], edges: [] });
      installMultiagent(graph, { gate: allowAll() });
      Object.defineProperty(kb, 'executeTools', {
        value: Reflect.get(Agent.prototype, 'executeTools'),
        configurable: true,
      });
      const { cancelled } = await runOrchestrator(graph);
      expect(ran).toEqual([]);
      expect(cancelled.kb).toMatch(/"executeTools" was replaced on the instance/);
    });
  });
});
