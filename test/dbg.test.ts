import { BeforeToolCallEvent, BeforeModelCallEvent } from '@strands-agents/sdk';
import { it } from 'vitest';
import { install } from '../src/index.js';
import { agentGateMark } from '../src/walker/marks.js';
import { agentHookRegistry, liveCallbackArray } from '../src/walker/sdk-internals.js';
import { call, isolateEachTest, ran, recordingTool, say, scriptedAgent, toolResults } from './helpers/sdk.js';
isolateEachTest();
it('stopped', async () => {
  const helper = scriptedAgent(
    'helper',
    [
      {
        tools: [
          { name: 'rm', input: {}, id: 'h1' },
          { name: 'ls', input: {}, id: 'h2' },
        ],
      },
      say('-'),
    ],
    { tools: [recordingTool('rm'), recordingTool('ls')] },
  );
  const lead = scriptedAgent('lead', [call('helper', { input: 'x' }), say('done')], {
    tools: [helper.asTool({ delegate: true })],
  });
  const gate = {
    name: 'g',
    decide: (r: { toolName: string }) => {
      if (r.toolName === 'rm') throw new Error('boom');
      return { verdict: 'allow' as const };
    },
  };
  install(helper, { gate });
  install(lead, { gate });
  lead.addHook(BeforeToolCallEvent, (e) => console.log('lead hook sees', e.agent.id, e.toolUse.toolUseId), {
    order: 5,
  });
  const r = await lead.invoke('go').catch((e) => e);
  console.log(String(r).slice(0, 200), ran, toolResults(helper), toolResults(lead));
});
it('unhooked', async () => {
  const helper = scriptedAgent('helper', [call('rm', {}, 'h1'), say('-')], { tools: [recordingTool('rm')] });
  const lead = scriptedAgent('lead', [call('helper', { input: 'x' }), say('done')], {
    tools: [helper.asTool({ delegate: true })],
  });
  const gate = { name: 'g', decide: () => ({ verdict: 'allow' as const }) };
  install(helper, { gate });
  install(lead, { gate });
  helper.addHook(BeforeModelCallEvent, () => {
    const hooks = liveCallbackArray(agentHookRegistry(helper), BeforeToolCallEvent) ?? [];
    const i = hooks.findIndex((h) => (h as { callback?: unknown }).callback === agentGateMark(helper)?.decisionHook);
    if (i >= 0) hooks.splice(i, 1);
  });
  const r = await lead.invoke('go').catch((e) => e);
  console.log(String(r).slice(0, 200), ran, toolResults(helper), toolResults(lead));
});
