/**
 * One `reportersOf` for the audit, `merge` and `observed`: the formats each command writes, its refusal (naming
 * the formats from the map), the shorthand and the checks every command shares.
 */
import { describe, expect, it } from 'vitest';
import { FORMAT_NAMES } from '../../src/report/render/index.js';
import { OBSERVED_FORMAT_NAMES } from '../../src/report/render/observed/index.js';
import { cli } from '../helpers/cli.js';

const GRAPH = 'fixtures/graphs/mixed-graph.ts';
const ANY_JSON = 'package.json';
const ANY_TRACES = 'package.json';

describe('reportersOf', () => {
  describe('when merge is asked for the interactive view (merge <report> --format tui / --reporter tui)', () => {
    for (const flags of [
      ['--format', 'tui'],
      ['--reporter', 'tui'],
      ['--reporter', 'json=out.json', '--reporter', 'tui'],
    ]) {
      it(`${flags.join(' ')}: exit 2, naming every format of the map, before any report is read`, async () => {
        const run = await cli('merge', 'no-such-report.json', ...flags);
        expect(run.code).toBe(2);
        expect(run.err).toContain(
          `format=<tui> | merge writes reports, not the interactive view | choose ${FORMAT_NAMES.join(', ')}\n`,
        );
        expect(run.out).toBe('');
      });
    }
  });

  describe('when observed is asked for a format it does not write (observed <traces> --format …)', () => {
    for (const format of ['mermaid', 'dot', 'tui', 'nope']) {
      it(`${format}: exit 2, naming the observed formats`, async () => {
        const run = await cli('observed', ANY_TRACES, '--format', format);
        expect(run.code).toBe(2);
        expect(run.err).toContain(
          `format=<${format}> | not a format of the observed report | choose ${OBSERVED_FORMAT_NAMES.join(', ')}\n`,
        );
      });
    }

    it('--reporter json= : exit 2, give a file', async () => {
      const run = await cli('observed', ANY_TRACES, '--reporter', 'json=');
      expect(run.code).toBe(2);
      expect(run.err).toContain('reporter=<json=> | give a file after "json="');
    });
  });

  describe('when more than one report would go to stdout, in any command', () => {
    for (const argv of [[GRAPH], ['merge', ANY_JSON], ['observed', ANY_TRACES]]) {
      it(`gate-audit ${argv[0] ?? ''} --reporter json --format text: exit 2`, async () => {
        const run = await cli(...argv, '--reporter', 'json', '--format', 'text');
        expect(run.code).toBe(2);
        expect(run.err).toContain('reporters=<json, text> | more than one report would go to stdout');
      });
    }
  });

  describe('when the interactive view is given an output file (<module> --format tui --output-file)', () => {
    it('exit 2: the interactive view cannot be written to a file', async () => {
      const run = await cli(GRAPH, '--format', 'tui', '--output-file', 'view.txt');
      expect(run.code).toBe(2);
      expect(run.err).toContain('the interactive view cannot be written to a file | drop --output-file');
    });
  });
});
