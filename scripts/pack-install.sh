#!/usr/bin/env bash
# The packed-install test. Packs gate-audit as npm publishes it; then, for each SDK version (default: the
# oldest the peer range allows, and 1.19.0), makes a fresh app that pins @strands-agents/sdk at exactly that
# version and installs the tarball the way a user does (no --force, no --legacy-peer-deps). Checks that:
#   - the install neither fails (ERESOLVE) nor runs a build (no lifecycle script of gate-audit runs);
#   - the app keeps its SDK version, pinned, with one copy of the SDK in node_modules;
#   - `npx gate-audit` on a Graph with one ungated agent exits 1 and names it, with no SDK warning;
#   - after installMultiagent, a tool the gate denies does not run (scripted model, real SDK);
#   - a CommonJS file of the app can require('gate-audit') and gets the same module as import;
#   - it adds at most 12 MB and 20 packages, without ink, React or @viz-js/viz; without them a terminal gets the
#     text report plus a line on what to install, `--format tui` exits 2, the HTML page says why it has no
#     picture; and an app on React 18 installs it without a conflict;
#   - a LangGraph.js-only app (no @strands-agents/sdk) installs it within the same bounds, without the SDK, and
#     gate-audit/langgraph gates a createAgent agent there (a denied tool does not run); `npx gate-audit` audits
#     its LangGraph agents there (exit 1 with one ungated, 0 on the gated one), `--import gate-audit/register`
#     refuses an ungated graph there and runs a gated one, and verify-log runs without it.
# Usage: scripts/pack-install.sh [sdk-version ...]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
oldest=$(node -p "/>=\s*(\S+)/.exec(require('./package.json').peerDependencies['@strands-agents/sdk'])[1]")
versions=("$@")
if [ ${#versions[@]} -eq 0 ]; then versions=("$oldest" 1.19.0); fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "pack-install: $*" >&2; exit 1; }

# GATE_AUDIT_BUILT=1: dist/ was built from these sources already (CI builds once, then packs and tests it).
if [ "${GATE_AUDIT_BUILT:-}" != 1 ]; then npm run build --silent; fi
tarball="$work/$(npm pack --ignore-scripts --silent --pack-destination "$work" | tail -n 1)"

# An app on React 18 installs gate-audit without a peer conflict (React is not a peer of gate-audit). It installs
# in the background while the SDK apps are checked (its result is read at the end).
react18() {
  local app="$work/app-react18"
  mkdir -p "$app" && cd "$app" || return 1
  npm init -y > /dev/null
  npm install --save-exact --no-audit --no-fund "@strands-agents/sdk@${versions[0]}" zod@4 react@18 > sdk.log 2>&1 || { cat sdk.log; echo "could not install React 18"; return 1; }
  npm install --no-audit --no-fund "$tarball" > install.log 2>&1 || { cat install.log; echo "installing the tarball into a React 18 app failed"; return 1; }
  [ "$(node -p "require('react/package.json').version.split('.')[0]")" = 18 ] || { echo "installing gate-audit changed the app's React"; return 1; }
}
react18 > "$work/react18.out" 2>&1 &
react18_pid=$!

# A LangGraph.js-only app: the peers it has, no Strands SDK. Checked in the background too.
langgraph_only() {
  local app="$work/app-langgraph"
  mkdir -p "$app" && cd "$app" || return 1
  npm init -y > /dev/null
  npm pkg set type=module > /dev/null
  local pins
  pins=$(node -p "['@langchain/langgraph', 'langchain', '@langchain/core'].map((n) => n + '@' + require('$here/package.json').devDependencies[n]).join(' ')")
  # shellcheck disable=SC2086 # one word per package
  npm install --save-exact --no-audit --no-fund $pins zod@4 > deps.log 2>&1 || { cat deps.log; echo "could not install LangGraph.js"; return 1; }
  local before_kb before_pkgs added_kb added_pkgs
  before_kb=$(du -sk node_modules | cut -f1)
  before_pkgs=$(node -p "Object.keys(require('./package-lock.json').packages).length")
  npm install --no-audit --no-fund "$tarball" > install.log 2>&1 || { cat install.log; echo "installing the tarball into a LangGraph.js app failed"; return 1; }
  added_kb=$(( $(du -sk node_modules | cut -f1) - before_kb ))
  added_pkgs=$(( $(node -p "Object.keys(require('./package-lock.json').packages).length") - before_pkgs ))
  echo "gate-audit adds ${added_kb} KB and ${added_pkgs} packages to a LangGraph.js app"
  [ "$added_kb" -le 12288 ] || { echo "installing gate-audit added ${added_kb} KB (more than 12 MB)"; return 1; }
  [ "$added_pkgs" -le 20 ] || { echo "installing gate-audit added ${added_pkgs} packages (more than 20)"; return 1; }
  [ ! -e node_modules/@strands-agents/sdk ] || { echo "installing gate-audit brought @strands-agents/sdk"; return 1; }
  cp "$here/fixtures/apps/langgraph-only/deny.mjs" deny.mjs
  local outcome
  outcome=$(node deny.mjs) || { echo "the LangGraph.js app failed: $outcome"; return 1; }
  echo "$outcome"
  [ "$outcome" = '{"before":2,"ran":0,"refused":true,"coverage":1,"turns":2}' ] || { echo "a denied tool ran, or the agent never ran, in the LangGraph.js app"; return 1; }
  # The audit runs there too: the ungated agent fails the run (exit 1), the gated one alone passes.
  cp "$here/fixtures/apps/langgraph-only/agents.mjs" agents.mjs
  local status=0
  npx gate-audit agents.mjs > cmd.out 2>&1 || status=$?
  [ "$status" -eq 1 ] && grep -q 'coverage 50%' cmd.out || { cat cmd.out; echo "the audit without the Strands SDK exited $status (expected 1, coverage 50%)"; return 1; }
  npx gate-audit agents.mjs --export gated > cmd.out 2>&1 || { cat cmd.out; echo "the audit of a gated LangGraph agent without the Strands SDK failed"; return 1; }
  grep -q '@strands-agents/sdk: not installed' <(npx gate-audit --version) || { echo "--version does not say the Strands SDK is not installed"; return 1; }
  # The process guard runs there too: an ungated graph is refused before it runs, the gated one runs.
  cp "$here/fixtures/apps/langgraph-only/gates.mjs" "$here/fixtures/apps/langgraph-only/guarded.mjs" .
  echo '{"processGuard":{"gates":"./gates.mjs"}}' > gate-audit.config.json
  outcome=$(node --import gate-audit/register guarded.mjs) || { echo "the guarded LangGraph.js app failed: $outcome"; return 1; }
  [ "$outcome" = '{"loose":"GATE_FAILED","allowed":"ran","ran":["gated"]}' ] || { echo "the process guard without the Strands SDK let an ungated graph run, or stopped the gated one: $outcome"; return 1; }
  rm gate-audit.config.json
  # The commands that read reports, traces and logs never load the SDK.
  npx gate-audit verify-log --help > help.out 2>&1 || { cat help.out; echo "verify-log does not run without the Strands SDK"; return 1; }
}
langgraph_only > "$work/langgraph.out" 2>&1 &
langgraph_pid=$!

for sdk in "${versions[@]}"; do
  app="$work/app-$sdk"
  mkdir -p "$app"
  cd "$app"
  echo "== app pinning @strands-agents/sdk $sdk"
  npm init -y > /dev/null
  npm pkg set type=module > /dev/null
  npm install --save-exact --no-audit --no-fund "@strands-agents/sdk@$sdk" zod@4 > sdk.log 2>&1 || { cat sdk.log; fail "could not install the SDK $sdk"; }
  before_kb=$(du -sk node_modules | cut -f1)
  before_pkgs=$(node -p "Object.keys(require('./package-lock.json').packages).length")
  npm install --no-audit --no-fund --foreground-scripts "$tarball" > install.log 2>&1 || { cat install.log; fail "installing the tarball next to SDK $sdk failed"; }
  # A runtime install stays lean: the interactive view (ink, React) and the pictures (@viz-js/viz) are not in it.
  added_kb=$(( $(du -sk node_modules | cut -f1) - before_kb ))
  added_pkgs=$(( $(node -p "Object.keys(require('./package-lock.json').packages).length") - before_pkgs ))
  echo "gate-audit adds ${added_kb} KB and ${added_pkgs} packages to an app with the SDK and zod"
  [ "$added_kb" -le 12288 ] || fail "installing gate-audit added ${added_kb} KB (more than 12 MB)"
  [ "$added_pkgs" -le 20 ] || fail "installing gate-audit added ${added_pkgs} packages (more than 20)"
  for lean in ink react @viz-js/viz; do
    [ ! -e "node_modules/$lean" ] || fail "a runtime install of gate-audit brought $lean"
  done
  if grep -E '^> gate-audit@' install.log; then fail "installing the tarball ran a script of gate-audit (a build?)"; fi

  node - "$sdk" <<'JS' || fail "the app's SDK changed"
const fs = require('node:fs');
const path = require('node:path');
const sdk = process.argv[2];
const pinned = JSON.parse(fs.readFileSync('package.json', 'utf8')).dependencies['@strands-agents/sdk'];
const installed = JSON.parse(fs.readFileSync('node_modules/@strands-agents/sdk/package.json', 'utf8')).version;
const copies = [];
(function find(dir) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const full = path.join(dir, entry.name);
    if (full.endsWith(path.join('@strands-agents', 'sdk'))) copies.push(full);
    else find(full);
  }
})('node_modules');
console.log(`pinned ${pinned}, installed ${installed}, copies: ${copies.join(', ')}`);
if (pinned !== sdk || installed !== sdk || copies.length !== 1) process.exit(1);
JS

  cat > graph.ts <<'TS'
import { Agent } from '@strands-agents/sdk';
import { Graph } from '@strands-agents/sdk/multiagent';
import { GatePlugin, allowAll } from 'gate-audit';

// collector carries a gate (GatePlugin); publisher is the one agent without one.
const collector = new Agent({ id: 'collector', printer: false, plugins: [new GatePlugin({ gate: allowAll() })] });
const publisher = new Agent({ id: 'publisher', printer: false });
export const graph = new Graph({ id: 'packed', nodes: [collector, publisher], edges: [['collector', 'publisher']], maxSteps: 4 });
TS
  status=0
  npx gate-audit --format text graph.ts > audit.out 2> audit.err || status=$?
  cat audit.out
  [ "$status" -eq 1 ] || { cat audit.err; fail "gate-audit on a graph with one ungated node exited $status, not 1"; }
  grep -Eq 'publisher +agent +ungated' audit.out || fail "the report does not name the ungated node"
  grep -Eq 'collector +agent +gated' audit.out || fail "the gated agent is not reported gated"
  if grep -q '\[gate-audit\] WARN' audit.err; then cat audit.err; fail "a tested SDK ($sdk) printed the untested-SDK warning"; fi

  # Without ink and React, a terminal gets the text report and one line saying what to install (same exit code);
  # the view asked for by name is a usage error; the HTML page says on stderr why it has no picture.
  status=0
  env -u CI script -qec "npx gate-audit graph.ts" /dev/null > tty.out 2>&1 || status=$?
  [ "$status" -eq 1 ] || { cat tty.out; fail "on a terminal without ink, gate-audit exited $status, not the run's 1"; }
  grep -q 'the interactive view needs ink, which is not installed | npm i -D ink@^6 react@^19' tty.out || { cat tty.out; fail "no line says what the interactive view needs"; }
  grep -Eq 'publisher +agent +ungated' tty.out || { cat tty.out; fail "the text report is not shown in place of the view"; }
  status=0
  env -u CI script -qec "npx gate-audit --format tui graph.ts" /dev/null > tty.out 2>&1 || status=$?
  [ "$status" -eq 2 ] || { cat tty.out; fail "--format tui without ink exited $status, not 2"; }
  status=0
  npx gate-audit --format html graph.ts > page.html 2> html.err || status=$?
  [ "$status" -eq 1 ] || { cat html.err; fail "the HTML report exited $status, not 1"; }
  grep -q 'the HTML page has no picture: it needs @viz-js/viz, which is not installed' html.err || { cat html.err; fail "the HTML page without its picture does not say why on stderr"; }
  grep -q 'publisher' page.html || fail "the HTML page is not written without its picture"

  cat > deny.mjs <<'JS'
import { Agent, Model, tool } from '@strands-agents/sdk';
import { Graph } from '@strands-agents/sdk/multiagent';
import { z } from 'zod';
import { denyAll, installMultiagent } from 'gate-audit';

class Scripted extends Model {
  calls = 0;
  updateConfig() {}
  getConfig() { return { modelId: 'scripted' }; }
  async *stream() {
    this.calls += 1;
    yield { type: 'modelMessageStartEvent', role: 'assistant' };
    if (this.calls === 1) {
      yield { type: 'modelContentBlockStartEvent', start: { type: 'toolUseStart', name: 'wipe', toolUseId: 't1' } };
      yield { type: 'modelContentBlockDeltaEvent', delta: { type: 'toolUseInputDelta', input: '{}' } };
      yield { type: 'modelContentBlockStopEvent' };
      yield { type: 'modelMessageStopEvent', stopReason: 'toolUse' };
      return;
    }
    yield { type: 'modelContentBlockDeltaEvent', delta: { type: 'textDelta', text: 'done' } };
    yield { type: 'modelContentBlockStopEvent' };
    yield { type: 'modelMessageStopEvent', stopReason: 'endTurn' };
  }
}
let ran = 0;
const wipe = tool({ name: 'wipe', description: 'wipes', inputSchema: z.object({}), callback: () => { ran += 1; return 'wiped'; } });
const model = new Scripted();
const agent = new Agent({ id: 'worker', printer: false, model, tools: [wipe] });
const graph = new Graph({ id: 'deny', nodes: [agent], edges: [], maxSteps: 4 });
installMultiagent(graph, { gate: denyAll() });
await graph.invoke('go').catch(() => undefined);
console.log(`model calls ${model.calls}, denied tool runs ${ran}`);
if (model.calls === 0 || ran !== 0) process.exit(1);
JS
  node deny.mjs 2> deny.err || { cat deny.err; fail "a denied tool ran (or the agent never ran) on SDK $sdk"; }

  cat > check.cjs <<'JS'
const required = require('gate-audit');
if (typeof required.installMultiagent !== 'function') process.exit(1);
if (typeof require('gate-audit/package.json').version !== 'string') process.exit(1);
import('gate-audit').then((imported) => {
  console.log(`require('gate-audit') from CommonJS: same module as import: ${required.audit === imported.audit}`);
  if (required.audit !== imported.audit) process.exit(1);
});
JS
  node check.cjs || fail "require('gate-audit') failed in a CommonJS file next to SDK $sdk"
  cd "$here"
done

echo "== app pinning react 18"
wait "$react18_pid" || { cat "$work/react18.out"; fail "the React 18 app"; }
echo "== LangGraph.js app without the Strands SDK"
wait "$langgraph_pid" || { cat "$work/langgraph.out"; fail "the LangGraph.js app"; }
cat "$work/langgraph.out"
echo "pack-install: ok (${versions[*]})"
