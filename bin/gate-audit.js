#!/usr/bin/env node
// The `gate-audit` command. The code lives in dist/ (built by `npm run build`, run on install by `prepare`).
import { run } from '../dist/cli/main.js';

await run();
