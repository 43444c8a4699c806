#!/usr/bin/env node
// The HTML report in Chromium, for the README (not a test): run after `npm run build`.
//
//   node scripts/html-report.mjs screenshot   writes docs/html-report.png from fixtures/graphs/mixed-graph.ts
//   node scripts/html-report.mjs timing       opens the page of a 10,000-node report, then filters it, and prints
//                                             how long each took in the browser (measured once, on this machine)
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';

const root = new URL('..', import.meta.url).pathname;
const mode = process.argv[2];
if (mode !== 'screenshot' && mode !== 'timing') {
  console.error('usage: node scripts/html-report.mjs screenshot|timing');
  process.exit(2);
}
const dir = mkdtempSync(join(tmpdir(), 'gate-audit-html-'));
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
});
try {
  if (mode === 'screenshot') {
    const file = join(dir, 'mixed.html');
    spawnSync('node', ['bin/gate-audit.js', 'fixtures/graphs/mixed-graph.ts', '--reporter', `html=${file}`], { cwd: root, stdio: 'inherit' });
    const page = await browser.newPage({ viewport: { width: 1280, height: 760 } });
    await page.goto(pathToFileURL(file).href);
    await page.locator('[data-path=\'["pricing","publisher"]\']').click();
    await page.screenshot({ path: join(root, 'docs/html-report.png'), fullPage: true });
    console.log('wrote docs/html-report.png');
  } else {
    const { renderHtmlPage } = await import(pathToFileURL(join(root, 'dist/report/render/html.js')).href);
    const { summarize } = await import(pathToFileURL(join(root, 'dist/report/audit.js')).href);
    const node = (path, kind, status) => ({
      path, id: path.at(-1), kind, status, reason: status === 'gated' ? 'GatePlugin installed by gate-audit' : 'no gate: its tools run unchecked',
      tools: kind === 'agent' ? ['read_file', 'web_search'] : [], toolsUnknownUntilInit: false, warnings: [],
      ...(status === 'gated' ? { gate: { name: 'policy', id: 'a'.repeat(64) } } : { fix: 'call installMultiagent(root) at startup' }),
    });
    // A Graph of 100 Swarms of 99 agents each: 10,000 nodes, every 7th agent ungated.
    const nodes = [node(['big'], 'graph', 'gated')];
    for (let i = 0; i < 9_999; i++) {
      const team = `team-${Math.floor(i / 100)}`;
      nodes.push(i % 100 === 0 ? node(['big', team], 'swarm', 'gated') : node(['big', team, `agent-${i}`], 'agent', i % 7 === 0 ? 'ungated' : 'gated'));
    }
    const report = { schemaVersion: 2, mode: 'audit', root: { id: 'big', kind: 'graph' }, nodes, edges: [], summary: summarize(nodes), refusals: [], sources: [] };
    let started = performance.now();
    const html = await renderHtmlPage(report);
    const renderMs = performance.now() - started;
    const file = join(dir, 'big.html');
    writeFileSync(file, html);
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    started = performance.now();
    await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
    const openMs = performance.now() - started;
    const navigation = await page.evaluate(() => performance.getEntriesByType('navigation')[0].loadEventEnd);
    // Each filter: the click or keystroke, the page's own work, and the layout it causes, measured in the page.
    const measure = (action) =>
      page.evaluate(
        (what) =>
          new Promise((resolve) => {
            const t = performance.now();
            if (what === 'not-gated') document.querySelector('[data-filter="not-gated"]').click();
            else {
              const input = document.getElementById('path-filter');
              input.value = what;
              input.dispatchEvent(new Event('input'));
            }
            void document.body.offsetHeight;
            requestAnimationFrame(() => resolve(performance.now() - t));
          }),
        action,
      );
    const notGated = await measure('not-gated');
    const text = await measure('agent-42');
    const cleared = await measure('');
    const rows = await page.locator('[data-path]').count();
    const ms = (n) => `${Math.round(n)} ms`;
    console.log(`10,000 nodes (${rows} elements with data-path), page ${(statSync(file).size / 1024 / 1024).toFixed(1)} MB`);
    console.log(`render (node): ${ms(renderMs)}; open in Chromium: ${ms(openMs)} (load event at ${ms(navigation)})`);
    console.log(`"not gated" filter: ${ms(notGated)}; path filter "agent-42": ${ms(text)}; clearing it: ${ms(cleared)}`);
  }
} finally {
  await browser.close();
  rmSync(dir, { recursive: true, force: true });
}
