import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { allowAll, install, installMultiagent, SdkMismatchError, UngateableError } from '../../src/index.js';
import { ScriptedModel, say } from '../helpers/sdk.js';
import { sdkCopy } from '../helpers/sdk-copy.js';

// A second copy of the SDK in one process (the app's copy next to gate-audit's). Hooks are keyed by
// the exact event class, so a gate built from one copy never fires on the other's agents.
interface SdkCopy {
  Agent: new (config: object) => { id: string };
  Graph: new (config: object) => object;
}
let other: SdkCopy;

beforeAll(async () => {
  const copy = sdkCopy();
  const index = (await import(pathToFileURL(join(copy, 'dist/src/index.js')).href)) as SdkCopy;
  const multi = (await import(pathToFileURL(join(copy, 'dist/src/multiagent/index.js')).href)) as SdkCopy;
  other = { Agent: index.Agent, Graph: multi.Graph };
});

describe('install and installMultiagent', () => {
  describe('when agents come from another copy of the SDK', () => {
    it('install refuses the agent with SdkMismatchError', () => {
      const agent = new other.Agent({ id: 'app', model: new ScriptedModel([say('x')]), printer: false });
      expect(() => install(agent as never, { gate: allowAll() })).toThrow(SdkMismatchError);
    });

    it('installMultiagent refuses a foreign Graph, naming the two copies and the fix', () => {
      const agent = new other.Agent({ id: 'app', model: new ScriptedModel([say('x')]), printer: false });
      const graph = new other.Graph({ id: 'app-graph', nodes: [agent], edges: [] });
      let error: unknown;
      try {
        installMultiagent(graph as never, { gate: allowAll() });
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(SdkMismatchError);
      expect(error).toBeInstanceOf(UngateableError);
      expect((error as SdkMismatchError).code).toBe('SDK_MISMATCH');
      expect((error as Error).message).toMatch(/npm dedupe/);
    });

    it('refuses a foreign agent nested in a local graph, listing it with its path', async () => {
      const { Graph } = await import('@strands-agents/sdk/multiagent');
      const foreign = new other.Agent({ id: 'foreign', model: new ScriptedModel([say('x')]), printer: false });
      const graph = new Graph({ id: 'local', nodes: [foreign as never], edges: [] });
      let error: unknown;
      try {
        installMultiagent(graph, { gate: allowAll() });
      } catch (e) {
        error = e;
      }
      expect((error as SdkMismatchError).findings.map((f) => `${f.path.join('/')}:${f.kind}`)).toEqual([
        'local/foreign:sdk-mismatch',
      ]);
    });

    it('chooses SdkMismatchError when a foreign agent sits beside another ungateable node, listing both', async () => {
      const { Graph } = await import('@strands-agents/sdk/multiagent');
      const { A2AAgent } = await import('@strands-agents/sdk/a2a');
      const foreign = new other.Agent({ id: 'foreign', model: new ScriptedModel([say('x')]), printer: false });
      const remote = new A2AAgent({ id: 'remote', url: 'http://127.0.0.1:9/x' });
      const graph = new Graph({ id: 'local', nodes: [foreign as never, remote], edges: [] });
      let error: unknown;
      try {
        installMultiagent(graph, { gate: allowAll() });
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(SdkMismatchError);
      expect((error as SdkMismatchError).findings.map((f) => `${f.path.join('/')}:${f.kind}`)).toEqual([
        'local/foreign:sdk-mismatch',
        'local/remote:remote',
      ]);
    });

    it('an accept entry cannot acknowledge a foreign agent node: a copy mismatch is fixed, not accepted', async () => {
      const { Graph } = await import('@strands-agents/sdk/multiagent');
      const foreign = new other.Agent({ id: 'foreign', model: new ScriptedModel([say('x')]), printer: false });
      const graph = new Graph({ id: 'local', nodes: [foreign as never], edges: [] });
      expect(() =>
        installMultiagent(graph, { gate: allowAll(), accept: [{ path: 'local/foreign', reason: 'x' }] }),
      ).toThrow(
        expect.objectContaining({
          code: 'INVALID_ACCEPT',
          message: expect.stringMatching(
            /^accept=<local\/foreign> \| cannot be accepted: it is a Agent from a different copy/,
          ) as string,
        }),
      );
    });
  });
});
