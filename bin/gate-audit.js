#!/usr/bin/env node
// The `gate-audit` command. The code lives in dist/ (built by `npm run build`, run on install by `prepare`).
// Every command runs without @strands-agents/sdk (an optional peer: a LangGraph.js-only app may not have it): the
// audit then audits LangGraph trees only, and says what to install when it meets anything else.
const { run } = await import('../dist/cli/main.js');
await run();
