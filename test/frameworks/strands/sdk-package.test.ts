/**
 * Which files belong to a copy of `@strands-agents/sdk` (`src/frameworks/strands/sdk-package.ts`): told by the name
 * in the nearest named `package.json` above a file, under any URL a loader hook may give, never by shape.
 */
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  isSdkUrl,
  modulePathOf,
  packageOf,
  SDK_PACKAGE,
  sdkRootOf,
  sourceText,
  strandsSdkInstalled,
} from '../../../src/frameworks/strands/sdk-package.js';
import { root } from '../../helpers/cli.js';

const require = createRequire(import.meta.url);
// Where the SDK really is: node_modules may be a link (Stryker's sandbox links it), and resolving follows links.
const sdkRoot = realpathSync(join(root, 'node_modules/@strands-agents/sdk'));
const sdkEntry = require.resolve(SDK_PACKAGE);

describe('packageOf', () => {
  describe('when a file lies under named and unnamed package.json files', () => {
    it('names the nearest package.json that has a name, and its folder', () => {
      const app = mkdtempSync(join(tmpdir(), 'gate-audit-sdk-package-'));
      mkdirSync(join(app, 'lib/esm'), { recursive: true });
      writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'the-app' }));
      // A nested `{"type":"module"}` has no name: the walk goes past it.
      writeFileSync(join(app, 'lib/esm/package.json'), JSON.stringify({ type: 'module' }));
      expect(packageOf(join(app, 'lib/esm/index.js'))).toEqual({ name: 'the-app', root: app });
      expect(packageOf(sdkEntry)).toEqual({ name: SDK_PACKAGE, root: sdkRoot });
    });
  });

  describe('when no package.json above the file has a name', () => {
    it('names nothing', () => {
      expect(packageOf('/no-such-folder/x/y.js')).toEqual({ name: undefined, root: undefined });
    });
  });
});

describe('modulePathOf', () => {
  describe('when the URL names a file', () => {
    it('gives its normalised path, whatever the scheme, query, fragment or escapes', () => {
      const file = join(sdkRoot, 'dist/src/index.js');
      const url = pathToFileURL(file).href;
      for (const spelled of [
        url,
        url.replace('/dist/src/', '/dist//src/'),
        url.replace('/dist/src/', '/dist/./src/'),
        `${url}?copy=2`,
        `${url}#x`,
        url.replace('/src/', '/%73rc/'),
        url.replace('file:', 'x-copy:'),
      ]) {
        expect(modulePathOf(spelled), spelled).toBe(file);
      }
    });
  });

  describe('when the URL has no path', () => {
    it('gives nothing for node:, data:, a relative path or an unparsable URL', () => {
      for (const url of ['node:fs', 'data:text/javascript,export default 1', 'x-copy:relative/a.js', 'not a url']) {
        expect(modulePathOf(url), url).toBeUndefined();
      }
    });
  });
});

describe('isSdkUrl and sdkRootOf', () => {
  describe('when the module is a file of an SDK copy', () => {
    it('names the copy it lies in', () => {
      const url = pathToFileURL(sdkEntry).href;
      expect(isSdkUrl(url)).toBe(true);
      expect(sdkRootOf(url)).toBe(sdkRoot);
      // A package inside the SDK's own node_modules is not the SDK.
      const nested = join(sdkRoot, 'node_modules/uuid/package.json');
      expect(isSdkUrl(pathToFileURL(join(dirname(nested), 'dist/index.js')).href)).toBe(false);
    });
  });

  describe('when the module is not the SDK', () => {
    it('names no copy, even for a builtin that exports an Agent too', () => {
      expect(isSdkUrl('node:https')).toBe(false);
      expect(isSdkUrl(pathToFileURL(require.resolve('@langchain/langgraph')).href)).toBe(false);
      expect(sdkRootOf(pathToFileURL(join(root, 'src/index.ts')).href)).toBeUndefined();
    });
  });
});

describe('sourceText', () => {
  describe('when a loader hook hands the source over as text or bytes', () => {
    it('reads it as UTF-8 text, a view of part of a buffer included', () => {
      const bytes = new TextEncoder().encode('// é\nexport {};');
      expect(sourceText('export {};')).toBe('export {};');
      expect(sourceText(bytes)).toBe('// é\nexport {};');
      expect(sourceText(bytes.buffer)).toBe('// é\nexport {};');
      expect(sourceText(new Uint8Array(bytes.buffer, 6, 3))).toBe('exp');
    });
  });
});

describe('strandsSdkInstalled', () => {
  describe('when the SDK can be resolved from gate-audit', () => {
    it('says so', () => {
      expect(strandsSdkInstalled()).toBe(true);
    });
  });
});
