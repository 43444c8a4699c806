/** The JSON renderer (`--format json`), through the map: the report itself. */
import { describe, expect, it } from 'vitest';
import { CoverageReportSchema } from '../../../src/index.js';
import { RENDERERS } from '../../../src/report/render/index.js';
import { mixed } from '../../helpers/reports.js';

describe('renderJson (as RENDERERS.json)', () => {
  describe('when they render an audit report', () => {
    it('json: the report itself, valid against the schema', () => {
      expect(CoverageReportSchema.parse(JSON.parse(RENDERERS.json(mixed, {})))).toEqual(mixed);
    });
  });
});
