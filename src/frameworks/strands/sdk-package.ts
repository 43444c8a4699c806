/**
 * Which files belong to a copy of `@strands-agents/sdk`: by the name in the nearest `package.json` above a
 * file, never by shape (`node:https` exports an `Agent` too). Shared by the audit child's loader hooks and the
 * process guard's, which run on Node's loader thread: node builtins only.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package whose copies are recognised. */
export const SDK_PACKAGE = '@strands-agents/sdk';

const nameByDir = new Map<string, { name: string | undefined; root: string | undefined }>();

/**
 * The nearest `package.json` above a file that has a name (a nested `{"type":"module"}` has none): its name and
 * folder.
 *
 * @param file - an absolute path
 */
export function packageOf(file: string): { name: string | undefined; root: string | undefined } {
  const seen: string[] = [];
  let found: { name: string | undefined; root: string | undefined } = { name: undefined, root: undefined };
  for (let dir = dirname(file); ; dir = dirname(dir)) {
    const known = nameByDir.get(dir);
    if (known !== undefined) {
      found = known;
      break;
    }
    seen.push(dir);
    let name: unknown;
    try {
      name = (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: unknown }).name;
    } catch {
      name = undefined;
    }
    if (typeof name === 'string') {
      found = { name, root: dir };
      break;
    }
    if (dirname(dir) === dir) break;
  }
  for (const dir of seen) nameByDir.set(dir, found);
  return found;
}

/**
 * Whether a module URL lies in a copy of the SDK.
 *
 * @param url - a module URL
 */
export function isSdkUrl(url: string): boolean {
  if (!url.startsWith('file:')) return false;
  try {
    return packageOf(fileURLToPath(url)).name === SDK_PACKAGE;
  } catch {
    return false;
  }
}

/**
 * The folder of the SDK copy a module URL lies in, or undefined when it is none.
 *
 * @param url - a module URL
 */
export function sdkRootOf(url: string): string | undefined {
  if (!url.startsWith('file:')) return undefined;
  try {
    const found = packageOf(fileURLToPath(url));
    return found.name === SDK_PACKAGE ? found.root : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A loader hook's module source as text (Node hands it over as a string or as bytes).
 *
 * @param source - the source a load hook got from the chain
 */
export function sourceText(source: string | ArrayBuffer | ArrayBufferView): string {
  if (typeof source === 'string') return source;
  const bytes = ArrayBuffer.isView(source)
    ? new Uint8Array(source.buffer, source.byteOffset, source.byteLength)
    : new Uint8Array(source);
  return Buffer.from(bytes).toString('utf8');
}

let installed: boolean | undefined;

/**
 * Whether `@strands-agents/sdk` can be imported from gate-audit's folder (an optional peer: a LangGraph.js-only
 * app has none). Read once per process, through the process's resolve hooks, without loading the SDK.
 */
export function strandsSdkInstalled(): boolean {
  if (installed === undefined) {
    try {
      import.meta.resolve(SDK_PACKAGE);
      installed = true;
    } catch {
      installed = false;
    }
  }
  return installed;
}
