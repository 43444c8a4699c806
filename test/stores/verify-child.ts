/**
 * Runs `gate-audit <args>` from the sources in its own process (for a test that bounds its heap) and exits
 * with its code. Usage: node --max-old-space-size=64 jiti-cli.mjs verify-child.ts verify-log --store <url>
 */
import { main } from '../../src/cli/main.js';

const code = await main(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr });
process.exit(code);
