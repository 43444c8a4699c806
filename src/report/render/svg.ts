/**
 * The coverage graph as an SVG picture for the HTML page: the DOT output laid out by Graphviz compiled to
 * WebAssembly (`@viz-js/viz`, imported only when a page is drawn), then rewritten through an allowlist
 * before it goes into the page.
 *
 * Graphviz writes labels as XML text and keeps an `&…;` it finds in a label as an entity, so its output is
 * not trusted as markup: `cleanSvg` keeps only the drawing elements and attributes Graphviz uses, with
 * attribute values of plain drawing characters, drops comments, processing instructions, doctypes and
 * everything else (with its content), and writes every text again from its decoded value shown with
 * `visible` and escaped. Nothing from data can become an element, an attribute, a link or a script, and a
 * label cannot reorder or hide itself through an entity.
 */
import { missingPackageOf } from '../../errors.js';
import { visible } from '../../escape.js';

/** The package that lays pictures out (Graphviz in WebAssembly), installed with gate-audit's development tools. */
const VIZ_PACKAGE = '@viz-js/viz';

/** The elements Graphviz draws with. */
const ELEMENTS = new Set(['svg', 'g', 'title', 'polygon', 'polyline', 'path', 'ellipse', 'text']);

/** The attributes kept on them. */
const ATTRIBUTES = new Set([
  'id',
  'class',
  'width',
  'height',
  'viewBox',
  'transform',
  'fill',
  'fill-opacity',
  'stroke',
  'stroke-width',
  'stroke-dasharray',
  'stroke-opacity',
  'points',
  'd',
  'cx',
  'cy',
  'rx',
  'ry',
  'x',
  'y',
  'text-anchor',
  'font-family',
  'font-size',
  'font-weight',
  'font-style',
]);

/** An attribute value made of drawing characters only (numbers, names, colours, path commands). */
const PLAIN_VALUE = /^[\w\s.,#%()+-]*$/;

const ENTITY = /&(?:#(\d+)|#x([0-9a-fA-F]+)|(lt|gt|amp|quot|apos|nbsp));/g;
const NAMED: Readonly<Record<string, string>> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'", nbsp: '\u00a0' };

function decode(text: string): string {
  return text.replace(ENTITY, (whole, dec: string | undefined, hex: string | undefined, name: string | undefined) => {
    if (name !== undefined) return NAMED[name] ?? '';
    const code = dec !== undefined ? Number(dec) : Number.parseInt(hex ?? '', 16);
    return Number.isInteger(code) && code >= 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  });
}

const ESCAPES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };

/** Text for HTML: `&`, `<`, `>` and `"` as entities. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/g, (c) => ESCAPES[c] ?? c);
}

/** One token of Graphviz's SVG output. */
const TOKEN =
  /<!--[\s\S]*?-->|<\?[\s\S]*?\?>|<!DOCTYPE[^>]*>|<(\/?)([A-Za-z][\w:-]*)((?:\s+[\w:-]+\s*=\s*"[^"]*")*)\s*(\/?)>|([^<]+)/gy;
const ATTRIBUTE = /([\w:-]+)\s*=\s*"([^"]*)"/g;

/** Graphviz could not be loaded or run, or its output could not be read as the SVG it writes. */
export class PictureError extends Error {
  /** Stable machine-readable code. */
  readonly code = 'PICTURE_FAILED' as const;

  /** @param message - what was wrong */
  constructor(message: string) {
    super(message);
    this.name = 'PictureError';
  }
}

/**
 * Rewrites Graphviz's SVG through the allowlist.
 *
 * @param svg - Graphviz's SVG output
 * @returns one `<svg>` element, safe to put in an HTML page
 * @throws PictureError when the text is not SVG of the shape Graphviz writes
 */
export function cleanSvg(svg: string): string {
  const out: string[] = [];
  /** Depth inside a dropped element (its content is dropped too). */
  let dropped = 0;
  const open: string[] = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < svg.length) {
    const at = TOKEN.lastIndex;
    const m = TOKEN.exec(svg);
    if (m === null) throw new PictureError(`unexpected markup at character ${at}`);
    const [whole, closing, name, attributes, selfClosing, text] = m;
    if (text !== undefined) {
      if (dropped > 0 || open.length === 0) continue;
      // Line breaks between elements stay line breaks; text in a label is shown with `visible`.
      const inLabel = open.at(-1) === 'text' || open.at(-1) === 'title';
      out.push(!inLabel && /^\s*$/.test(text) ? '\n' : escapeHtml(visible(decode(text))));
      continue;
    }
    if (name === undefined) continue; // comment, processing instruction, doctype
    if (closing === '/') {
      if (dropped > 0) {
        dropped -= 1;
        continue;
      }
      if (open.pop() !== name) throw new PictureError(`unbalanced </${name}>`);
      out.push(`</${name}>`);
      continue;
    }
    const selfClosed = selfClosing === '/';
    if (dropped > 0 || !ELEMENTS.has(name)) {
      if (!selfClosed) dropped += 1;
      continue;
    }
    if (name === 'svg' && open.length > 0) throw new PictureError('nested <svg>');
    if (name !== 'svg' && open.length === 0) throw new PictureError(`<${name}> outside <svg>`);
    const kept: string[] = [];
    for (const [, attribute, raw] of (attributes ?? '').matchAll(ATTRIBUTE)) {
      if (attribute === undefined || !ATTRIBUTES.has(attribute)) continue;
      const value = decode(raw ?? '');
      if (!PLAIN_VALUE.test(value) || /url\s*\(/i.test(value)) continue;
      kept.push(` ${attribute}="${escapeHtml(value)}"`);
    }
    out.push(`<${name}${kept.join('')}${selfClosed ? '/>' : '>'}`);
    if (!selfClosed) open.push(name);
    void whole;
  }
  if (open.length > 0 || dropped > 0) throw new PictureError('unclosed elements');
  const result = out.join('').trim();
  if (!result.startsWith('<svg')) throw new PictureError('no <svg> element');
  return result;
}

/** The Graphviz instance, made once per process. */
let vizInstance: Promise<{ renderString: (dot: string, options: { format: string }) => string }> | undefined;

/**
 * Lays out DOT with Graphviz (WebAssembly) and returns the cleaned SVG. `&` in the DOT is written `&amp;`
 * first, so Graphviz shows it as the character it is instead of reading an entity from data.
 *
 * @param dot - the output of `renderDot`
 * @returns one `<svg>` element, safe to put in an HTML page
 * @throws PictureError when Graphviz fails or writes something else than the SVG it writes
 */
export async function layoutSvg(dot: string): Promise<string> {
  vizInstance ??= import('@viz-js/viz').then(({ instance }) => instance());
  let svg: string;
  try {
    const viz = await vizInstance;
    svg = viz.renderString(dot.replaceAll('&', '&amp;'), { format: 'svg' });
  } catch (cause) {
    vizInstance = undefined;
    // @viz-js/viz is not a runtime dependency: a runtime install draws pages without their picture.
    if (missingPackageOf(cause, [VIZ_PACKAGE]) !== undefined) {
      throw new PictureError(`it needs ${VIZ_PACKAGE}, which is not installed | npm i -D ${VIZ_PACKAGE}`);
    }
    throw new PictureError(
      `graphviz could not lay out the graph: ${visible(cause instanceof Error ? cause.message : String(cause))}`,
    );
  }
  return cleanSvg(svg);
}
