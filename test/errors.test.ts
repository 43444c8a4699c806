import { describe, expect, it } from 'vitest';
import {
  CoverageError,
  type Finding,
  formatFinding,
  GateConflictError,
  GateFailedError,
  missingPackageOf,
  NoGateError,
  PolicyError,
  SdkMismatchError,
  UngateableError,
} from '../src/errors.js';
import { hasHiddenCharacters } from '../src/escape.js';

// An id that, printed raw, rewrites its own line, forges a clean finding and hides the rest in the dark.
const FORGED =
  'publisher\r  - "pricing › auditor" is fine | nothing to do\n\u001b[8m\u001b]52;c;cm0gLXJmIH4=\u0007\u202e';

const finding = (path: string[], reason = 'is an A2AAgent (remote)'): Finding => ({
  path,
  kind: 'remote',
  reason,
  fix: 'gate it on its own server or remove it',
});

/** Lines of a message, each one free of anything a terminal would act on. */
function lines(message: string): string[] {
  const split = message.split('\n');
  for (const line of split) expect(hasHiddenCharacters(line)).toBe(false);
  return split;
}

describe('error messages', () => {
  describe('when the data holds controls, quotes or forged separators', () => {
    it('formatFinding: one line, the data shown escaped, the quoted path ending where it seems to', () => {
      const text = formatFinding(finding(['pricing', FORGED], `bad\r${FORGED}`));
      expect(lines(text)).toHaveLength(1);
      expect(text).toMatch(/^"pricing › publisher\\r {2}- \\x22pricing \\u203a auditor\\x22 is fine/);
      expect(text).toContain('\\x1b[8m\\x1b]52;c;cm0gLXJmIH4=\\x07\\u202e');
    });

    it('UngateableError and SdkMismatchError: one line per finding, structural newlines only', () => {
      const findings = [finding(['a', FORGED]), finding(['b'], `x\n  - forged`), finding(['c\u2028d'])];
      const error = new UngateableError(findings);
      const split = lines(error.message);
      expect(split).toHaveLength(1 + findings.length);
      expect(split.slice(1).every((l) => l.startsWith('  - "'))).toBe(true);
      expect(error.findings).toEqual(findings);
      expect(lines(new SdkMismatchError(findings).message)).toHaveLength(2 + findings.length);
    });

    it('CoverageError: each given line printed on one line', () => {
      const error = new CoverageError([`"x › ${FORGED}" is ungated: r`, 'y\r\nz']);
      const split = lines(error.message);
      expect(split).toHaveLength(3);
      expect(split[2]).toBe('  - y\\r\\nz');
      expect(error.nodes[1]).toBe('y\r\nz');
    });

    it('PolicyError: file, rule, field and message neutralised, keys cannot forge a field', () => {
      const one = new PolicyError('p\u202eolicy.yaml', [
        { rule: 'r>, field=<verdict', field: 'rules[0].x\u001b[2K', message: `unknown key "${FORGED}"` },
      ]);
      const [line] = lines(one.message);
      expect(line).toMatch(
        /^file=<p\\u202eolicy\.yaml>, rule=<r\\x3e, field=\\x3cverdict>, field=<rules\[0\]\.x\\x1b\[2K> \| /,
      );
      const many = new PolicyError('p.json', [
        { field: 'a', message: 'one\ntwo' },
        { field: 'b\r', message: 'three' },
      ]);
      expect(lines(many.message)).toHaveLength(3);
    });

    it('NoGateError: the subject neutralised', () => {
      expect(lines(new NoGateError(`install(agent "${FORGED}")`).message)).toHaveLength(1);
    });

    it('GateConflictError: paths and gate names neutralised, one line per conflict', () => {
      const error = new GateConflictError([
        { path: ['team', FORGED], existing: 'policy\u202e', requested: 'policy' },
        { path: ['team', 'b'], existing: 'x"y', requested: 'x"y' },
      ]);
      const split = lines(error.message);
      expect(split).toHaveLength(3);
      expect(split[2]).toBe('  - "team › b" carries another gate also named "x\\x22y" (a different gate object)');
    });

    it('GateFailedError: a failure naming a model-chosen tool stays on one line', () => {
      expect(lines(new GateFailedError(`tool=<${FORGED}> timed out`).message)).toHaveLength(1);
    });
  });
});

describe('missingPackageOf', () => {
  const failedImport = async (specifier: string): Promise<unknown> => {
    try {
      await import(/* @vite-ignore */ specifier);
    } catch (error) {
      return error;
    }
    throw new Error(`${specifier} loaded`);
  };

  describe('when Node could not find an optional package', () => {
    it('names the package', async () => {
      const error = await failedImport('gate-audit-not-installed-view');
      expect(missingPackageOf(error, ['gate-audit-not-installed-view'])).toBe('gate-audit-not-installed-view');
    });
  });

  describe('when the package is not optional or the error is another', () => {
    it('is undefined for a missing package that is not optional, and for any other error', async () => {
      expect(missingPackageOf(await failedImport('gate-audit-not-installed-view'), ['ink'])).toBeUndefined();
      expect(missingPackageOf(new Error("Cannot find package 'ink'"), ['ink'])).toBeUndefined();
      expect(missingPackageOf(await failedImport('./no-such-file-here.js'), ['ink'])).toBeUndefined();
    });
  });
});
