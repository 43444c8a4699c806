import { createReactAgent } from '@langchain/langgraph/prebuilt';
import { createAgent } from 'langchain';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { allowAll, audit, installMultiagent, UngateableError } from '../../../src/index.js';
import { installedVersion, LANGGRAPH_TESTED, setLangGraphVersions } from '../../../src/frameworks/langgraph/version.js';
import { inTestedRange } from '../../../src/frameworks/versions.js';
import { root } from '../../helpers/cli.js';
import { callsOnce, recordingTool } from '../../helpers/langgraph.js';

afterEach(() => setLangGraphVersions());

describe('LANGGRAPH_TESTED (the tested LangGraph range)', () => {
  describe('when compared with the installed packages and package.json', () => {
    it('holds the versions installed here (CI runs the oldest and the newest: the lock file pins the newest)', () => {
      expect(Object.keys(LANGGRAPH_TESTED).sort()).toEqual(['@langchain/core', '@langchain/langgraph', 'langchain']);
      for (const name of Object.keys(LANGGRAPH_TESTED)) {
        expect(inTestedRange(installedVersion(name) ?? 'none', LANGGRAPH_TESTED[name]!), name).toBe(true);
      }
    });

    it("is the peer range's lower end and the pinned devDependency, package by package (what CI installs)", () => {
      const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
        peerDependencies: Record<string, string>;
        devDependencies: Record<string, string>;
      };
      for (const [name, range] of Object.entries(LANGGRAPH_TESTED)) {
        expect(manifest.peerDependencies[name], name).toMatch(new RegExp(`^>=${range.min.replaceAll('.', '\\.')} `));
        expect(manifest.devDependencies[name], name).toBe(range.max);
      }
    });
  });

  describe('when the package of a tool node is outside it', () => {
    it("refuses createAgent's tool node (langchain) before changing anything", () => {
      setLangGraphVersions({ langchain: '1.4.6' });
      const agent = createAgent({ model: callsOnce('rm', {}), tools: [recordingTool('rm', [])], name: 'a' });
      expect(() => installMultiagent(agent, { gate: allowAll() })).toThrow(UngateableError);
      expect(() => installMultiagent(agent, { gate: allowAll() })).toThrow(
        /tested on langchain >=1\.5\.0 <=1\.5\.14; this copy is 1\.4\.6/,
      );
      expect(audit(agent).summary.gated).toBe(0);
    });

    it('refuses the prebuilt tool node (@langchain/langgraph) of a newer major', () => {
      setLangGraphVersions({ '@langchain/langgraph': '2.0.0' });
      const agent = createReactAgent({ llm: callsOnce('rm', {}), tools: [recordingTool('rm', [])], name: 'ops' });
      expect(() => installMultiagent(agent, { gate: allowAll() })).toThrow(/@langchain\/langgraph >=1\.4\.18/);
    });
  });
});
