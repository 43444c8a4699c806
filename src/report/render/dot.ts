/**
 * The coverage graph in Graphviz DOT: orchestrators are clusters, agents used as tools hang off their
 * agent with a dashed edge, graph edges are arrows, and every node is coloured by status.
 */
import type { CoverageReport } from '../schema.js';
import { type Group, groups, isContainer, labelOf, STATUS_COLORS } from './picture.js';

const quote = (value: string): string =>
  `"${value.replaceAll('\\', '\\\\').replaceAll('"', '\\"').replaceAll('\n', '\\n')}"`;

/**
 * Renders a report as a Graphviz digraph.
 *
 * @param report - the report
 * @returns the DOT source, ending with a newline
 */
export function renderDot(report: CoverageReport): string {
  const { roots, idOf } = groups(report);
  const lines = [
    'digraph coverage {',
    '  rankdir=LR;',
    '  compound=true;',
    '  fontname="Helvetica"; fontsize=12;',
    '  node [shape=box, style="rounded,filled", fontname="Helvetica", fontsize=11];',
    '  edge [fontname="Helvetica", fontsize=10];',
  ];
  const edges: string[] = [];
  const draw = (group: Group, indent: string): void => {
    const { node } = group;
    const c = STATUS_COLORS[node.status];
    if (isContainer(node)) {
      lines.push(`${indent}subgraph cluster_${group.id} {`);
      lines.push(
        `${indent}  label=${quote(labelOf(node).replace('\n', ' · '))}; style="rounded,filled"; fillcolor="${c.fill}80"; color="${c.stroke}"; fontcolor="${c.text}"; penwidth=2;`,
      );
      for (const member of group.members) draw(member, `${indent}  `);
      if (group.members.length === 0) lines.push(`${indent}  ${group.id}_empty [label="(no nodes)", style=dashed];`);
      lines.push(`${indent}}`);
      return;
    }
    lines.push(
      `${indent}${group.id} [label=${quote(labelOf(node))}, fillcolor="${c.fill}", color="${c.stroke}", fontcolor="${c.text}", status="${node.status}"];`,
    );
    for (const member of group.members) {
      draw(member, indent);
      edges.push(`  ${group.id} -> ${member.id} [style=dashed, arrowhead=none, color="#777777", label="tool"];`);
    }
  };
  for (const root of roots) draw(root, '  ');
  const firstLeaf = (group: Group | undefined): string | undefined =>
    group === undefined
      ? undefined
      : isContainer(group.node)
        ? (firstLeaf(group.members[0]) ?? `${group.id}_empty`)
        : group.id;
  const byId = new Map<string, Group>();
  const index = (group: Group): void => {
    byId.set(group.id, group);
    group.members.forEach(index);
  };
  roots.forEach(index);
  for (const edge of report.edges) {
    if (edge.kind !== 'flow') continue;
    const from = byId.get(idOf.get(JSON.stringify(edge.from)) ?? '');
    const to = byId.get(idOf.get(JSON.stringify(edge.to)) ?? '');
    const tail = firstLeaf(from);
    const head = firstLeaf(to);
    if (from === undefined || to === undefined || tail === undefined || head === undefined) continue;
    const clusters = [
      isContainer(from.node) ? `ltail=cluster_${from.id}` : '',
      isContainer(to.node) ? `lhead=cluster_${to.id}` : '',
    ].filter((a) => a !== '');
    edges.push(`  ${tail} -> ${head}${clusters.length > 0 ? ` [${clusters.join(', ')}]` : ''};`);
  }
  lines.push(...edges, '}');
  return `${lines.join('\n')}\n`;
}
