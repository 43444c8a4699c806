/**
 * The coverage graph as a Mermaid flowchart: orchestrators are subgraphs, agents used as tools hang off
 * their agent with a dotted link, graph edges are arrows, and every node is coloured by status.
 *
 * Labels are data: shown with `visible` (no line break, control or bidi character from data), then `#`,
 * `"`, `<` and `>` written as Mermaid entity codes, so a label can neither end its quotes nor carry markup.
 */
import type { CoverageReport } from '../schema.js';
import { type Group, groups, isContainer, labelOf, STATUS_COLORS, visitGroups } from './picture.js';

const ENTITY: Readonly<Record<string, string>> = { '#': '#35;', '"': '#quot;', '<': '#lt;', '>': '#gt;' };

/** A label for inside `["…"]`: entity codes for Mermaid's specials, our own line breaks as `<br/>`. */
const text = (value: string): string => value.replace(/[#"<>]/g, (c) => ENTITY[c] ?? c).replaceAll('\n', '<br/>');

/**
 * Renders a report as a Mermaid flowchart. Linear in the number of nodes.
 *
 * @param report - the report
 * @returns the Mermaid source, ending with a newline
 */
export function renderMermaid(report: CoverageReport): string {
  const { roots, idOf } = groups(report);
  const lines = ['flowchart LR'];
  const styled: string[] = [];
  const links: string[] = [];
  const indentOf = new Map<Group, string>();
  visitGroups(
    roots,
    (group) => {
      const { node } = group;
      const indent = indentOf.get(group) ?? '  ';
      const container = isContainer(node);
      for (const member of group.members) indentOf.set(member, container ? `${indent}  ` : indent);
      if (container) {
        lines.push(`${indent}subgraph ${group.id}["${text(labelOf(node))}"]`);
        const c = STATUS_COLORS[node.status];
        styled.push(`  style ${group.id} fill:${c.fill},stroke:${c.stroke},color:${c.text}`);
        return;
      }
      lines.push(`${indent}${group.id}["${text(labelOf(node))}"]:::${node.status}`);
      for (const member of group.members) links.push(`  ${group.id} -. tool .-> ${member.id}`);
    },
    (group) => {
      if (isContainer(group.node)) lines.push(`${indentOf.get(group) ?? '  '}end`);
    },
  );
  for (const edge of report.edges) {
    if (edge.kind !== 'flow') continue;
    const from = idOf.get(JSON.stringify(edge.from));
    const to = idOf.get(JSON.stringify(edge.to));
    if (from !== undefined && to !== undefined) links.push(`  ${from} --> ${to}`);
  }
  for (const line of links) lines.push(line);
  for (const line of styled) lines.push(line);
  for (const [status, c] of Object.entries(STATUS_COLORS)) {
    lines.push(`  classDef ${status} fill:${c.fill},stroke:${c.stroke},color:${c.text}`);
  }
  return `${lines.join('\n')}\n`;
}
