#!/usr/bin/env bash
# Packs gate-audit, installs the tarball in an empty project next to the SDK, and runs `npx gate-audit`
# on a module there: proves the published package (files, bin, exports, peer dependencies) works.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$here"
tarball=$(npm pack --silent --pack-destination "$work" | tail -n 1)
sdk=$(node -p "require('./package.json').devDependencies['@strands-agents/sdk']")
cd "$work"
npm init -y > /dev/null
npm pkg set type=module > /dev/null
npm install --no-audit --no-fund "./$tarball" "@strands-agents/sdk@$sdk" zod@4 > install.log 2>&1 || { cat install.log; exit 1; }
cat > graph.ts <<'TS'
import { Agent } from '@strands-agents/sdk';
import { Graph } from '@strands-agents/sdk/multiagent';
import { allowAll, installMultiagent } from 'gate-audit';

const writer = new Agent({ id: 'writer', printer: false });
export const graph = new Graph({ id: 'packed', nodes: [writer], edges: [] });
installMultiagent(graph, { gate: allowAll() });
TS
npx gate-audit graph.ts
node --input-type=module -e "import('gate-audit/vitest').catch(() => {}); const m = await import('gate-audit'); if (typeof m.installMultiagent !== 'function') process.exit(1);"
echo "pack smoke test: ok"
