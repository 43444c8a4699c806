/**
 * Which files belong to a copy of `@strands-agents/sdk`: by the name in the nearest `package.json` above a
 * file, never by shape (`node:https` exports an `Agent` too). Shared by the audit child's loader hooks and the
 * process guard's, which run on Node's loader thread: node builtins only.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
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
 * The file a module URL names, normalised (a query, a fragment, an empty or dot segment, an escaped character
 * name no other file): a `file:` URL's path, or the path of a URL of another scheme that a loader hook gave (a
 * hook may serve a copy's file under a URL of its own). Undefined for a URL without a path (`node:`, `data:`).
 *
 * @param url - a module URL
 */
export function modulePathOf(url: string): string | undefined {
  try {
    if (url.startsWith('file:')) return normalize(fileURLToPath(url));
    const parsed = new URL(url);
    if (parsed.protocol === 'node:' || parsed.protocol === 'data:') return undefined;
    const path = decodeURIComponent(parsed.pathname);
    return path.startsWith('/') ? normalize(path) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether a module URL lies in a copy of the SDK.
 *
 * @param url - a module URL
 */
export function isSdkUrl(url: string): boolean {
  return sdkRootOf(url) !== undefined;
}

/**
 * The folder of the SDK copy a module URL lies in, or undefined when it is none.
 *
 * @param url - a module URL
 */
export function sdkRootOf(url: string): string | undefined {
  const file = modulePathOf(url);
  if (file === undefined) return undefined;
  const found = packageOf(file);
  return found.name === SDK_PACKAGE ? found.root : undefined;
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
