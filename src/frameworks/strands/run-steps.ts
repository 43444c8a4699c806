/**
 * The steps of an SDK `Agent`, `Graph` and `Swarm` run below `invoke` and `stream`, by name: the private methods
 * a subclass that skips `stream` still reaches before a model is called or an MCP client connects (the audit
 * child stops a run at each, where the copy has them). Names only, no import: the audit child's preload reads
 * them before any copy of the SDK is loaded.
 */

/** The public entry points of a run. */
export const RUN_ENTRY_METHODS: readonly string[] = ['invoke', 'stream'];

/** The steps below the entry points, by kind of object run. */
export const RUN_STEP_METHODS: Readonly<Record<'agent' | 'graph' | 'swarm', readonly string[]>> = {
  agent: [
    'initialize',
    '_stream',
    '_streamCore',
    '_invokeModel',
    '_invokeModelWithMiddleware',
    '_streamFromModel',
    'executeTools',
  ],
  graph: ['initialize', '_stream'],
  swarm: ['initialize', '_stream'],
};
