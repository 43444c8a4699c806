/**
 * `GatePlugin`: the construction-time way to gate an agent, `new Agent({ plugins: [new GatePlugin({ gate })] })`.
 * It installs the same gate as `install()` when the agent initialises, and does nothing when the agent
 * carries a gate already, so the two are idempotent together.
 */
import type { Agent, Plugin } from '@strands-agents/sdk';
import { UngateableError } from '../errors.js';
import { segmentOf, UNNAMED } from '../tree-paths.js';
import { agentGateState, classifyExecutor } from '../walker/classify.js';
import { GATE_PLUGIN_MARK, type GatePluginMark } from '../walker/marks.js';
import { type GateSource, installAgentGate } from './agent-gate.js';
import { lockAgent } from '../frameworks/strands/sdk-mutations.js';
import { gateSource } from './gate-source.js';
import type { InstallOptions } from './install.js';
import { ensureSdk } from '../frameworks/strands/sdk-check.js';

/** Gates the agent it is given to, when that agent initialises. */
export class GatePlugin implements Plugin {
  /** The plugin name the SDK registers (one per agent). */
  readonly name = 'gate-audit:gate';
  private readonly _options: InstallOptions;

  /**
   * @param options - `{ gate, timeoutMs }`; without a gate the process-wide gate (`configureGate`) is resolved at
   *   each call
   */
  constructor(options: InstallOptions = {}) {
    this._options = { ...options };
    const mark: GatePluginMark = {
      ...(options.gate === undefined ? {} : { gate: options.gate }),
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    };
    Object.defineProperty(this, GATE_PLUGIN_MARK, { value: mark, enumerable: false });
  }

  /**
   * The gate this plugin installs. Throws `NoGateError` when none is given or configured.
   *
   * @returns the gate source
   */
  gateSource(): GateSource {
    return gateSource(this._options, `GatePlugin`);
  }

  /**
   * Called by the SDK at the agent's first run. Throws (failing that run) when the agent cannot be gated
   * or no gate exists: it never lets the agent run ungated.
   *
   * @param agent - the agent initialising
   */
  initAgent(agent: Agent): void {
    ensureSdk({ requireTested: this._options.requireTestedSdk === true });
    if (agentGateState(agent) === 'gated') return;
    const path = [segmentOf(agent.id, UNNAMED)];
    const classified = classifyExecutor(agent);
    if (classified.problem !== undefined) throw new UngateableError([{ path, ...classified.problem }]);
    installAgentGate(agent, this.gateSource(), path);
    lockAgent(agent);
  }
}
