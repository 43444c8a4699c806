#!/usr/bin/env node
// The `gate-audit` command. The code lives in dist/ (built by `npm run build`, run on install by `prepare`).
// The audit, check-policy and init load the app's modules and @strands-agents/sdk (an optional peer: a
// LangGraph.js-only app may not have it); without it, one line says what to install, exit 2, instead of a stack
// trace. The commands that read reports, traces, logs and stores (merge, observed, verify-log, approvals, store)
// never load it, and run without it.
import { createRequire } from 'node:module';

const withoutSdk = new Set(['merge', 'observed', 'verify-log', 'approvals', 'store']);
if (!withoutSdk.has(process.argv[2])) {
  try {
    createRequire(import.meta.url).resolve('@strands-agents/sdk');
  } catch {
    process.stderr.write(
      'gate-audit: the audit, check-policy and init need @strands-agents/sdk, which is not installed (LangGraph.js apps too, for now; merge, observed, verify-log, approvals and store run without it) | npm i -D @strands-agents/sdk\n',
    );
    process.exit(2);
  }
}
const { run } = await import('../dist/cli/main.js');
await run();
