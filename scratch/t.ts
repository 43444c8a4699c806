import { layoutSvg } from '../src/report/render/svg.ts';
import { renderDot } from '../src/report/render/dot.ts';
const r: any = {"schemaVersion":2,"mode":"audit","root":{"id":"x","kind":"graph"},"nodes":[{"path":[""],"id":"","kind":"graph","status":"gated","reason":"r","tools":[],"toolsUnknownUntilInit":false,"warnings":[]}],"edges":[],"refusals":[],"sources":[]};
console.log(renderDot(r)); console.log(await layoutSvg(renderDot(r)));
