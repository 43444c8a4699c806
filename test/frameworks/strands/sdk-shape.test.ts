import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  checkSdkShape,
  FEATURE_ABSENT,
  makeSdkProbes,
  SDK_FIELDS,
  type SdkField,
  type SdkProbes,
  sdkFeatures,
} from '../../../src/frameworks/strands/sdk-shape.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '../../..');

/** The object a field is read from on the probes, and the last key of its path. */
function holder(probes: SdkProbes, field: SdkField): { object: Record<string, unknown>; key: string } {
  const owner: Record<SdkField['owner'], unknown> = {
    Agent: field.need === 'background-tasks' ? probes.featureAgents['background-tasks'] : probes.agent,
    Graph: probes.graph,
    Swarm: probes.swarm,
    AgentNode: probes.graph.nodes.get('probe-a'),
    MultiAgentNode: probes.graph.nodes.get('probe-nested'),
    AgentAsTool: probes.agentTool,
    StructuredOutputTool: undefined,
    ZodTool: undefined,
    A2AAgent: undefined,
  };
  const keys = field.field.split('.');
  let object = owner[field.owner] as Record<string, unknown>;
  for (const key of keys.slice(0, -1)) object = object[key] as Record<string, unknown>;
  return { object, key: keys[keys.length - 1]! };
}

/** Renames an own field (moving its value), or shadows a prototype member with `undefined`. */
function rename(object: Record<string, unknown>, key: string): void {
  const value = object[key];
  if (Object.hasOwn(object, key)) delete object[key];
  Object.defineProperty(object, key, { value: undefined, configurable: true, writable: true });
  object[`${key}Renamed`] = value;
}

const probed = SDK_FIELDS.filter((f) => f.checked === 'probe');
const features = sdkFeatures();

describe('the SDK shape self-check', () => {
  describe('when run on the loaded SDK', () => {
    it('passes on the loaded SDK', () => {
      expect(checkSdkShape()).toBeUndefined();
    });
  });

  describe('when its list of SDK fields is read', () => {
    it('marks every field required or feature-dependent, and says what it is for', () => {
      for (const field of SDK_FIELDS) {
        expect(['required', 'background-tasks', 'a2a', 'tracing']).toContain(field.need);
        expect(field.why.length).toBeGreaterThan(10);
      }
    });

    it('lists every private SDK field gate-audit reads or locks (the list cannot drift)', () => {
      const listed = new Set(SDK_FIELDS.flatMap((f) => f.field.split('.')));
      const read = new Set<string>();
      // Only this folder names them (scripts/lint-sdk-fields.mjs); run-steps.ts names methods of a run, not fields.
      const files = readdirSync(join(root, 'src/frameworks/strands'))
        .filter((file) => file.endsWith('.ts') && file !== 'run-steps.ts')
        .map((file) => `src/frameworks/strands/${file}`);
      for (const file of files) {
        const text = readFileSync(join(root, file), 'utf8');
        // Quoted names: SDK fields are read and locked by name (gate-audit's own privates are `this._x`).
        for (const match of text.matchAll(/'(_[a-zA-Z]+)'/g)) read.add(match[1]!);
      }
      // Read only by `check-policy` to say whether an agent has a structured output schema (absent reads as none);
      // gate-audit's guarantees do not rest on it, so it is not in the startup check.
      const unchecked = new Set(['_structuredOutputSchema']);
      expect(read.size).toBeGreaterThan(10);
      expect([...read].filter((name) => !listed.has(name) && !unchecked.has(name))).toEqual([]);
    });
  });

  describe.each(probed.map((f) => [`${f.owner}.${f.field}`, f] as const))('when %s', (_name, field) => {
    const skipUnlessPresent = (skip: (condition: boolean, note: string) => void): void => {
      if (field.need === 'background-tasks') {
        skip(!features['background-tasks'], FEATURE_ABSENT['background-tasks']);
      }
    };

    it('is renamed: the check names the object and the field', ({ skip }) => {
      skipUnlessPresent(skip);
      const probes = makeSdkProbes();
      const { object, key } = holder(probes, field);
      rename(object, key);
      expect(checkSdkShape(probes)).toMatchObject({ owner: field.owner, field: field.field });
    });

    it('has another type: the check names the object and the field', ({ skip }) => {
      skipUnlessPresent(skip);
      const probes = makeSdkProbes();
      const { object, key } = holder(probes, field);
      Object.defineProperty(object, key, { value: 'not-the-shape', configurable: true, writable: true });
      expect(checkSdkShape(probes)).toMatchObject({ owner: field.owner, field: field.field });
    });
  });

  describe('when a probe misbehaves although its fields have the right types', () => {
    it('refuses a hook registry that ignores the order option (the gate would not run first)', () => {
      const probes = makeSdkProbes();
      const callbacks = (probes.agent as unknown as { _hooksRegistry: { _callbacks: Map<unknown, unknown[]> } })
        ._hooksRegistry._callbacks;
      for (const entries of callbacks.values()) entries.reverse();
      expect(checkSdkShape(probes)).toMatchObject({ field: '_hooksRegistry._callbacks', found: 'registration order' });
    });

    it('refuses an AgentNode whose _agent is not the agent it runs', () => {
      const probes = makeSdkProbes();
      const node = probes.graph.nodes.get('probe-a') as unknown as { _agent: unknown };
      node._agent = probes.plainAgent;
      expect(checkSdkShape(probes)).toMatchObject({ owner: 'AgentNode', field: '_agent' });
    });

    it('refuses a pending-plugin list that does not hold the plugins given (a GatePlugin would go unseen)', () => {
      const probes = makeSdkProbes();
      (probes.agent as unknown as { _pluginRegistry: { _pending: unknown[] } })._pluginRegistry._pending = [];
      expect(checkSdkShape(probes)).toMatchObject({ owner: 'Agent', field: '_pluginRegistry._pending' });
    });
  });

  describe('when telling which optional features the SDK has', () => {
    it('tells background tasks by presence: a probe configured with them registers their plugin', () => {
      const probes = makeSdkProbes();
      const configured = probes.featureAgents['background-tasks'] as unknown as Record<string, unknown>;
      expect(features['background-tasks']).toBe(
        typeof configured._backgroundTasks === 'object' && configured._backgroundTasks !== null,
      );
    });
  });
});
