/**
 * The coverage graph in Graphviz DOT: orchestrators are clusters, agents used as tools hang off their
 * agent with a dashed edge, graph edges are arrows, and every node is coloured by status.
 *
 * Labels are data: shown with `visible` (no line break, control or bidi character from data), then `\` and
 * `"` backslash-escaped inside a quoted DOT string, so a label cannot end its quotes or use DOT's `\N`-style
 * escapes.
 */
import type { CoverageReport } from '../schema.js';
import { type Group, groups, isContainer, labelOf, STATUS_COLORS, visitGroups } from './picture.js';

const quote = (value: string): string =>
  `"${value.replaceAll('\\', '\\\\').replaceAll('"', '\\"').replaceAll('\n', '\\n')}"`;

/**
 * Renders a report as a Graphviz digraph. Linear in the number of nodes.
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
  const byId = new Map<string, Group>();
  const indentOf = new Map<Group, string>();
  /** The node an edge to or from a cluster attaches to: its first leaf, or its placeholder when empty. */
  const firstLeaf = (start: Group | undefined): string | undefined => {
    let group = start;
    while (group !== undefined && isContainer(group.node)) {
      const first: Group | undefined = group.members[0];
      if (first === undefined) return `${group.id}_empty`;
      group = first;
    }
    return group?.id;
  };
  visitGroups(
    roots,
    (group) => {
      byId.set(group.id, group);
      const { node } = group;
      const indent = indentOf.get(group) ?? '  ';
      const container = isContainer(node);
      for (const member of group.members) indentOf.set(member, container ? `${indent}  ` : indent);
      const c = STATUS_COLORS[node.status];
      if (container) {
        lines.push(`${indent}subgraph cluster_${group.id} {`);
        lines.push(
          `${indent}  label=${quote(labelOf(node).replace('\n', ' · '))}; style="rounded,filled"; fillcolor="${c.fill}80"; color="${c.stroke}"; fontcolor="${c.text}"; penwidth=2;`,
        );
        return;
      }
      lines.push(
        `${indent}${group.id} [label=${quote(labelOf(node))}, fillcolor="${c.fill}", color="${c.stroke}", fontcolor="${c.text}", status="${node.status}"];`,
      );
      for (const member of group.members) {
        // An orchestrator under an agent is a cluster, not a node: the edge goes to its first leaf and is
        // clipped at the cluster (naming the cluster's id would make DOT draw a stray node of that name).
        const head = isContainer(member.node) ? `${firstLeaf(member)} [lhead=cluster_${member.id}, ` : `${member.id} [`;
        edges.push(`  ${group.id} -> ${head}style=dashed, arrowhead=none, color="#777777", label="tool"];`);
      }
    },
    (group) => {
      if (!isContainer(group.node)) return;
      const indent = indentOf.get(group) ?? '  ';
      if (group.members.length === 0) lines.push(`${indent}  ${group.id}_empty [label="(no nodes)", style=dashed];`);
      lines.push(`${indent}}`);
    },
  );
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
  for (const line of edges) lines.push(line);
  lines.push('}');
  return `${lines.join('\n')}\n`;
}
