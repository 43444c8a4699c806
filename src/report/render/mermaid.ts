/**
 * The coverage graph as a Mermaid flowchart: orchestrators are subgraphs, agents used as tools hang off
 * their agent with a dotted link, graph edges are arrows, and every node is coloured by status.
 */
import type { CoverageReport } from '../schema.js';
import { type Group, groups, isContainer, labelOf, STATUS_COLORS } from './picture.js';

const text = (value: string): string => value.replaceAll('"', '#quot;').replaceAll('\n', '<br/>');

/**
 * Renders a report as a Mermaid flowchart.
 *
 * @param report - the report
 * @returns the Mermaid source, ending with a newline
 */
export function renderMermaid(report: CoverageReport): string {
  const { roots, idOf } = groups(report);
  const lines = ['flowchart LR'];
  const styled: string[] = [];
  const links: string[] = [];
  const draw = (group: Group, indent: string): void => {
    const { node } = group;
    if (isContainer(node)) {
      lines.push(`${indent}subgraph ${group.id}["${text(labelOf(node))}"]`);
      for (const member of group.members) draw(member, `${indent}  `);
      lines.push(`${indent}end`);
      const c = STATUS_COLORS[node.status];
      styled.push(`  style ${group.id} fill:${c.fill},stroke:${c.stroke},color:${c.text}`);
      return;
    }
    lines.push(`${indent}${group.id}["${text(labelOf(node))}"]:::${node.status}`);
    for (const member of group.members) {
      draw(member, indent);
      links.push(`  ${group.id} -. tool .-> ${member.id}`);
    }
  };
  for (const root of roots) draw(root, '  ');
  for (const edge of report.edges) {
    if (edge.kind !== 'flow') continue;
    const from = idOf.get(JSON.stringify(edge.from));
    const to = idOf.get(JSON.stringify(edge.to));
    if (from !== undefined && to !== undefined) links.push(`  ${from} --> ${to}`);
  }
  lines.push(...links, ...styled);
  for (const [status, c] of Object.entries(STATUS_COLORS)) {
    lines.push(`  classDef ${status} fill:${c.fill},stroke:${c.stroke},color:${c.text}`);
  }
  return `${lines.join('\n')}\n`;
}
