/**
 * Runs of the built `gate-audit` on apps whose tools and model leave a mark when they really run (the runner
 * app's `RUNNER_MARKS` folder): each test gets a fresh folder, and `ran()` lists what ran for real.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { type CoverageReport, CoverageReportSchema } from '../../src/report/schema.js';
import { root } from './cli.js';

const bin = join(root, 'bin/gate-audit.js');

/** One run of the command. */
export interface MarkedRun {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** The helpers of one test file: call it at the top level of the file (it registers the hooks). */
export function markedRuns(): {
  marks: () => string;
  ran: () => string[];
  gateAudit: (args: string[]) => MarkedRun;
  json: (args: string[]) => { status: number | null; report: CoverageReport; stderr: string };
} {
  let folder = '';
  beforeEach(() => {
    folder = mkdtempSync(join(tmpdir(), 'gate-audit-marks-'));
  });
  afterEach(() => rmSync(folder, { recursive: true, force: true }));
  const gateAudit = (args: string[]): MarkedRun => {
    const run = spawnSync(process.execPath, [bin, ...args], {
      cwd: root,
      encoding: 'utf8',
      env: { ...process.env, CI: 'true', RUNNER_MARKS: folder },
      timeout: 90_000,
    });
    return { status: run.status, stdout: run.stdout, stderr: run.stderr };
  };
  return {
    marks: () => folder,
    ran: () => {
      const log = join(folder, 'ran.log');
      return existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : [];
    },
    gateAudit,
    json: (args) => {
      const run = gateAudit(['--format', 'json', ...args]);
      return { status: run.status, report: CoverageReportSchema.parse(JSON.parse(run.stdout)), stderr: run.stderr };
    },
  };
}
