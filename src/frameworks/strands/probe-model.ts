/**
 * The model of gate-audit's own probe agents (the SDK shape check and the behavioural self-test): it plays
 * back a fixed script, never reaches a network and prints nothing. Each turn calls tools or answers text.
 */
import { type BaseModelConfig, Model, type ModelStreamEvent } from '@strands-agents/sdk';

/** One turn of a probe's script: tool calls (name and input), or a final text. */
export type ProbeTurn = { readonly tools: readonly { name: string; input: object }[] } | { readonly text: string };

let sequence = 0;

/** Plays back its turns in order; once they run out it answers an empty text. */
export class ProbeModel extends Model<BaseModelConfig> {
  /** How many times the agent called the model. */
  calls = 0;
  private readonly _turns: readonly ProbeTurn[];
  private readonly _tag = `gate-audit-probe-${sequence++}`;
  private _config: BaseModelConfig = { modelId: 'gate-audit-probe' };

  /** @param turns - the script (none: the model answers an empty text) */
  constructor(turns: readonly ProbeTurn[] = []) {
    super();
    this._turns = turns;
  }

  /** @param config - merged into the current configuration */
  updateConfig(config: BaseModelConfig): void {
    this._config = { ...this._config, ...config };
  }

  /** @returns the current configuration */
  getConfig(): BaseModelConfig {
    return this._config;
  }

  /** Streams the next turn of the script. */
  // eslint-disable-next-line @typescript-eslint/require-await
  async *stream(): AsyncIterable<ModelStreamEvent> {
    const turn = this._turns[this.calls] ?? { text: '' };
    this.calls += 1;
    yield { type: 'modelMessageStartEvent', role: 'assistant' };
    if ('tools' in turn) {
      for (const [k, call] of turn.tools.entries()) {
        const toolUseId = `${this._tag}-${this.calls}-${k}`;
        yield { type: 'modelContentBlockStartEvent', start: { type: 'toolUseStart', name: call.name, toolUseId } };
        yield {
          type: 'modelContentBlockDeltaEvent',
          delta: { type: 'toolUseInputDelta', input: JSON.stringify(call.input) },
        };
        yield { type: 'modelContentBlockStopEvent' };
      }
      yield { type: 'modelMessageStopEvent', stopReason: 'toolUse' };
      return;
    }
    yield { type: 'modelContentBlockDeltaEvent', delta: { type: 'textDelta', text: turn.text } };
    yield { type: 'modelContentBlockStopEvent' };
    yield { type: 'modelMessageStopEvent', stopReason: 'endTurn' };
  }
}
