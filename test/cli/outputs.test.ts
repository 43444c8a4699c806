/**
 * `renderReport`, the one rendering of a report for the audit and for `merge`: a format the map does not name is
 * a usage error that lists the formats, never a report in some other format.
 */
import { describe, expect, it } from 'vitest';
import { buildMixedGraph } from '../../fixtures/graphs/mixed-graph.js';
import { renderReport } from '../../src/cli/outputs.js';
import { GateAuditError } from '../../src/errors.js';
import { audit } from '../../src/index.js';
import { FORMAT_NAMES, RENDERERS } from '../../src/report/render/index.js';

const report = audit(buildMixedGraph());
const settings = { version: '0.0.0', exitRule: {}, quiet: false, sarif: {} };

describe('renderReport', () => {
  describe('when the format is one of the map', () => {
    it('renders every format of the map as its renderer does', async () => {
      for (const format of FORMAT_NAMES) {
        const text = await renderReport(format, report, settings);
        if (format !== 'html') expect(text).toBe(RENDERERS[format](report, settings));
      }
    });
  });

  describe('when the format is not one of the map', () => {
    for (const name of ['nope', 'tui', 'toString', 'TEXT', '']) {
      it(`refuses ${JSON.stringify(name)} as a usage error naming the formats, rendering nothing`, async () => {
        const refused = await renderReport(name, report, settings).then(
          () => undefined,
          (error: unknown) => error,
        );
        expect(refused).toBeInstanceOf(GateAuditError);
        expect((refused as GateAuditError).code).toBe('USAGE');
        expect((refused as GateAuditError).message).toContain(`choose ${FORMAT_NAMES.join(', ')}`);
      });
    }
  });
});
