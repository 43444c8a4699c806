/**
 * The marks (`src/walker/marks.ts`) read as data: a mark is an own data property of a plain object, never read
 * through a getter or a `Proxy` trap, and a `GatePlugin`'s mark is `true` (older copies) or an object naming its
 * gate and timeout. Written against the survivors of the walker's mutation run (CONTRIBUTING.md, "Mutation testing").
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  AGENT_GATE_MARK,
  agentGateMark,
  GATE_PLUGIN_MARK,
  gatePluginGate,
  gatePluginMark,
  isGatePlugin,
  NODE_GUARD_MARK,
  nodeGuardMark,
} from '../../src/walker/marks.js';

/** An object carrying `value` under `key` as an own data property. */
function marked(key: symbol, value: unknown): object {
  const target = {};
  Object.defineProperty(target, key, { value });
  return target;
}

/** A Proxy whose traps answer `value` for `key`, as a plain marked object would. */
function proxied(key: symbol, value: unknown): object {
  return new Proxy(marked(key, value), {});
}

describe('readMark', () => {
  describe('when the mark is an own data property', () => {
    it('reads an own data property of an object', () => {
      const mark = { decisionHook: (): void => undefined };
      expect(agentGateMark(marked(AGENT_GATE_MARK, mark))).toBe(mark);
      expect(nodeGuardMark(marked(NODE_GUARD_MARK, mark))).toBe(mark);
    });
  });

  describe('when the mark is not an own data property of an object', () => {
    it('answers undefined for a Proxy, a primitive, null, a getter or a missing mark', () => {
      const mark = { decisionHook: (): void => undefined };
      expect(agentGateMark(proxied(AGENT_GATE_MARK, mark))).toBeUndefined();
      expect(nodeGuardMark(proxied(NODE_GUARD_MARK, mark))).toBeUndefined();
      expect(agentGateMark('agent')).toBeUndefined();
      expect(agentGateMark(null)).toBeUndefined();
      expect(agentGateMark(undefined)).toBeUndefined();
      const getter = {};
      Object.defineProperty(getter, AGENT_GATE_MARK, { get: () => mark });
      expect(agentGateMark(getter)).toBeUndefined();
      expect(agentGateMark({})).toBeUndefined();
    });
  });
});

describe('the GatePlugin mark', () => {
  const gate = { name: 'g', decide: (): { verdict: 'allow' } => ({ verdict: 'allow' }) };

  describe('when the mark is true or an object', () => {
    it('true (an older copy) is a plugin with no gate or timeout of its own', () => {
      const plugin = marked(GATE_PLUGIN_MARK, true);
      expect(isGatePlugin(plugin)).toBe(true);
      expect(gatePluginGate(plugin)).toBeUndefined();
      expect(gatePluginMark(plugin)).toEqual({});
    });

    it('an object names its gate and timeout, read as data', () => {
      const plugin = marked(GATE_PLUGIN_MARK, { gate, timeoutMs: 5 });
      expect(isGatePlugin(plugin)).toBe(true);
      expect(gatePluginGate(plugin)).toBe(gate);
      expect(gatePluginMark(plugin)).toEqual({ gate, timeoutMs: 5 });
      const getterGate = {};
      Object.defineProperty(getterGate, 'gate', { get: () => gate, enumerable: true });
      expect(gatePluginMark(marked(GATE_PLUGIN_MARK, getterGate))).toEqual({ gate: undefined, timeoutMs: undefined });
      expect(gatePluginGate(marked(GATE_PLUGIN_MARK, getterGate))).toBeUndefined();
    });
  });

  describe('when the mark is anything else', () => {
    it('is no mark: false, a string, null, a Proxy around the mark, a Proxy plugin', () => {
      for (const value of [false, 'yes', 1, null, undefined]) {
        const plugin = marked(GATE_PLUGIN_MARK, value);
        expect(isGatePlugin(plugin), String(value)).toBe(false);
        expect(gatePluginGate(plugin), String(value)).toBeUndefined();
        expect(gatePluginMark(plugin), String(value)).toBeUndefined();
      }
      expect(gatePluginMark(marked(GATE_PLUGIN_MARK, new Proxy({ gate }, {})))).toBeUndefined();
      expect(isGatePlugin(proxied(GATE_PLUGIN_MARK, true))).toBe(false);
      expect(gatePluginGate(proxied(GATE_PLUGIN_MARK, { gate }))).toBeUndefined();
    });
  });
});

describe('the keys of the marks', () => {
  describe('when src/ is searched for them', () => {
    it('are each written in src/walker/marks.ts and nowhere else in src/', () => {
      const src = fileURLToPath(new URL('../../src/', import.meta.url));
      const key = /Symbol\.for\(\s*['"`]gate-audit\.|['"`]gate-audit\.[a-z.-]+\.v\d+['"`]/;
      const writers = readdirSync(src, { recursive: true, encoding: 'utf8' })
        .filter((file) => /\.tsx?$/.test(file))
        .filter((file) =>
          readFileSync(join(src, file), 'utf8')
            .split('\n')
            // A doc comment may show the key to a reader.
            .some((line) => !/^\s*(\*|\/\/)/.test(line) && key.test(line)),
        )
        .map((file) => file.split('\\').join('/'));
      expect(writers).toEqual(['walker/marks.ts']);
    });
  });
});
