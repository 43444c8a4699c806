#!/usr/bin/env node
// The `gate-audit` command. The code lives in dist/ (built by `npm run build`, run on install by `prepare`).
// The command loads @strands-agents/sdk (an optional peer: a LangGraph.js-only app may not have it); without it,
// one line says what to install, exit 2, instead of a stack trace.
import { createRequire } from 'node:module';

try {
  createRequire(import.meta.url).resolve('@strands-agents/sdk');
} catch {
  process.stderr.write(
    'gate-audit: the command needs @strands-agents/sdk, which is not installed (LangGraph.js apps too, for now) | npm i -D @strands-agents/sdk\n',
  );
  process.exit(2);
}
const { run } = await import('../dist/cli/main.js');
await run();
