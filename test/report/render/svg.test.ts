/**
 * The picture's allowlist (`cleanSvg`): what of Graphviz's SVG the HTML report keeps, and what it refuses.
 */
import { describe, expect, it } from 'vitest';
import { cleanSvg, PictureError } from '../../../src/report/render/svg.js';

describe('cleanSvg (the picture allowlist)', () => {
  const wrap = (inner: string): string =>
    `<?xml version="1.0"?>\n<!DOCTYPE svg>\n<!-- made by graphviz -->\n<svg width="10pt" height="10pt" viewBox="0 0 10 10" xmlns="http://www.w3.org/2000/svg">${inner}</svg>\n`;

  describe('when it cleans what Graphviz writes', () => {
    it('keeps the drawing: groups, shapes, text, with their drawing attributes', () => {
      const svg = cleanSvg(
        wrap(
          '<g id="node1" class="node"><title>n1</title><polygon fill="#d7f5dd" stroke="#2e7d32" points="0,0 1,1"/><text text-anchor="middle" x="1" y="2" font-family="Helvetica,sans-Serif" font-size="11.00">✔ a&amp;b</text></g>',
        ),
      );
      expect(svg).toBe(
        '<svg width="10pt" height="10pt" viewBox="0 0 10 10"><g id="node1" class="node"><title>n1</title><polygon fill="#d7f5dd" stroke="#2e7d32" points="0,0 1,1"/><text text-anchor="middle" x="1" y="2" font-family="Helvetica,sans-Serif" font-size="11.00">✔ a&amp;b</text></g></svg>',
      );
    });

    it('drops scripts, links, foreign content, handlers, styles and references, with their content', () => {
      const svg = cleanSvg(
        wrap(
          '<script>alert(1)</script><a href="javascript:alert(1)"><text>link</text></a><foreignObject><div>x</div></foreignObject><image href="https://evil.example/x.png"/><g onclick="alert(1)" style="fill:red" fill="url(https://evil.example/#x)" class="node"><text>kept</text></g>',
        ),
      );
      expect(svg).toBe(
        '<svg width="10pt" height="10pt" viewBox="0 0 10 10"><g class="node"><text>kept</text></g></svg>',
      );
    });

    it('writes text again from its value: an entity cannot bring back a bidi, control or markup character', () => {
      const svg = cleanSvg(wrap('<text>&#x202e;evil&#8203;&#x1b;[31m&lt;script&gt;</text>'));
      expect(svg).toContain('<text>\\u202eevil\\u200b\\x1b[31m&lt;script&gt;</text>');
    });
  });
  describe('when the input is not what Graphviz writes', () => {
    it('refuses what Graphviz does not write: stray markup, unbalanced or nested elements', () => {
      expect(() => cleanSvg(wrap('<text>a < b</text>'))).toThrow(PictureError);
      expect(() => cleanSvg(wrap('<g><text>a</g></text>'))).toThrow(PictureError);
      expect(() => cleanSvg(wrap('<svg></svg>'))).toThrow(PictureError);
      expect(() => cleanSvg('<g></g>')).toThrow(PictureError);
      expect(() => cleanSvg('just text')).toThrow(PictureError);
    });
  });
});
