/**
 * What LangGraph.js values look like, read by shape (`src/frameworks/langgraph/shape.ts`): real compiled graphs,
 * builders, agents, tool nodes and tools are told from look-alikes, and members are read from their descriptors
 * (no getter runs, no Proxy is looked into).
 */
import { END, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { RemoteGraph } from '@langchain/langgraph/remote';
import { createReactAgent, ToolNode } from '@langchain/langgraph/prebuilt';
import { createAgent } from 'langchain';
import { describe, expect, it } from 'vitest';
import {
  graphOfAgent,
  hasMiddlewareChain,
  isFrameworkModelNode,
  isGraphBuilder,
  isLocalTool,
  isPlumbing,
  isPregel,
  isReactAgent,
  isRemoteGraph,
  isToolNode,
  memberOf,
  toolName,
  type ToolNodeLike,
} from '../../../src/frameworks/langgraph/shape.js';
import { callsOnce, recordingTool, toolNodeGraph } from '../../helpers/langgraph.js';

describe('memberOf', () => {
  describe('when the member is a method up the prototype chain', () => {
    it('reads it from its descriptor', () => {
      const graph = toolNodeGraph('g', [recordingTool('rm', [])]);
      expect(memberOf(graph, 'stream')).toBe((graph as unknown as { stream: unknown }).stream);
      expect(memberOf(graph, 'no-such-member')).toBeUndefined();
    });
  });

  describe('when reading would run code', () => {
    it('reads nothing from a getter, a Proxy, or a prototype that is a Proxy', () => {
      let ran = 0;
      const withGetter = {
        get stream(): unknown {
          ran += 1;
          return () => undefined;
        },
      };
      const behindProxy = Object.create(new Proxy({ stream: () => undefined }, {})) as object;
      expect(memberOf(withGetter, 'stream')).toBeUndefined();
      expect(memberOf(new Proxy({ stream: () => undefined }, {}), 'stream')).toBeUndefined();
      expect(memberOf(behindProxy, 'stream')).toBeUndefined();
      expect(memberOf(null, 'stream')).toBeUndefined();
      expect(ran).toBe(0);
    });
  });
});

describe('isPregel, isRemoteGraph, isGraphBuilder and isReactAgent', () => {
  describe('when given the real values', () => {
    it('tells a compiled graph, a remote graph, a builder and a createAgent agent apart', () => {
      const builder = new StateGraph(MessagesAnnotation)
        .addNode('a', () => ({}))
        .addEdge(START, 'a')
        .addEdge('a', END);
      const compiled = builder.compile({ name: 'g' });
      const remote = new RemoteGraph({ graphId: 'far', url: 'http://127.0.0.1:9' });
      const agent = createAgent({ model: callsOnce('rm', {}), tools: [recordingTool('rm', [])], name: 'a' });
      const rows = [builder, compiled, remote, agent].map((value) => [
        isGraphBuilder(value),
        isPregel(value),
        isRemoteGraph(value),
        isReactAgent(value),
      ]);
      expect(rows).toEqual([
        [true, false, false, false],
        [false, true, false, false],
        [false, false, true, false],
        [false, false, false, true],
      ]);
      expect(graphOfAgent(agent)).toBe(agent.graph);
    });
  });

  describe('when given look-alikes', () => {
    it('tells none of them a graph or an agent', () => {
      const lookAlikes: unknown[] = [
        { lg_is_pregel: true, nodes: {} },
        { lg_is_pregel: 'yes', nodes: {}, stream: () => undefined },
        { nodes: {}, edges: [], compile: () => undefined },
        { invoke: () => undefined, options: {}, graph: {} },
        undefined,
        'graph',
      ];
      for (const value of lookAlikes) {
        expect([isPregel(value), isRemoteGraph(value), isGraphBuilder(value), isReactAgent(value)]).toEqual([
          false,
          false,
          false,
          false,
        ]);
      }
    });
  });
});

describe('isToolNode, hasMiddlewareChain and isLocalTool', () => {
  describe('when given the tool nodes of both flavours and their tools', () => {
    it("tells the prebuilt tool node from langchain's, which runs the middleware chain", () => {
      const prebuilt = new ToolNode([recordingTool('rm', [])]);
      const agent = createAgent({ model: callsOnce('rm', {}), tools: [recordingTool('rm', [])], name: 'a' });
      const langchainNode = agent.graph.nodes.tools!.bound;
      expect(isToolNode(prebuilt)).toBe(true);
      expect(isToolNode(langchainNode)).toBe(true);
      expect(hasMiddlewareChain(prebuilt as unknown as ToolNodeLike)).toBe(false);
      expect(hasMiddlewareChain(langchainNode as unknown as ToolNodeLike)).toBe(true);
      expect(isLocalTool(prebuilt.tools[0])).toBe(true);
    });
  });

  describe('when given look-alikes', () => {
    it('tells a value without tools or without its methods no tool node, and a named object no tool', () => {
      expect(isToolNode({ tools: [], runTool: () => undefined })).toBe(false);
      expect(isToolNode({ tools: 'rm', runTool: () => undefined, run: () => undefined })).toBe(false);
      expect(isLocalTool({ name: 'rm', invoke: () => undefined })).toBe(false);
      expect(isLocalTool({ name: 'rm', call: () => undefined, invoke: () => undefined, lc_runnable: false })).toBe(
        false,
      );
    });
  });
});

describe('toolName', () => {
  describe('when a tool or a tool definition is named', () => {
    it('reads its name, else its type, else says it is unnamed', () => {
      expect(toolName(recordingTool('rm', []))).toBe('rm');
      expect(toolName({ type: 'web_search_preview' })).toBe('web_search_preview');
      expect(toolName({})).toBe('(unnamed tool)');
      expect(toolName('bare')).toBe('bare');
    });
  });
});

describe('isFrameworkModelNode and isPlumbing', () => {
  describe("when given the framework's own nodes", () => {
    it("tells createAgent's and createReactAgent's model nodes, and the graph's start", () => {
      const agent = createAgent({ model: callsOnce('rm', {}), tools: [recordingTool('rm', [])], name: 'a' });
      const react = createReactAgent({ llm: callsOnce('rm', {}), tools: [recordingTool('rm', [])], name: 'r' });
      expect(isFrameworkModelNode(agent.graph.nodes.model_request!.bound)).toBe(true);
      expect(isFrameworkModelNode(react.nodes.agent!.bound)).toBe(true);
      expect(isPlumbing(react.nodes.__start__!.bound)).toBe(true);
    });
  });

  describe("when given the app's nodes", () => {
    it('tells a function node named callModel, as the tutorials name it, a node of the app', () => {
      const callModel = (): object => ({});
      const graph = new StateGraph(MessagesAnnotation)
        .addNode('agent', callModel)
        .addEdge(START, 'agent')
        .addEdge('agent', END)
        .compile({ name: 'app' });
      expect(isFrameworkModelNode(graph.nodes.agent.bound)).toBe(false);
      expect(isPlumbing(graph.nodes.agent.bound)).toBe(false);
      expect(isFrameworkModelNode(undefined)).toBe(false);
    });
  });
});
