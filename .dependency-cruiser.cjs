// The pipeline's import direction (walker → enforce → policy → report → cli), checked in `npm run lint`.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-import-cli',
      severity: 'error',
      comment: 'nothing imports the CLI shell',
      from: { pathNot: '^src/cli/' },
      to: { path: '^src/cli/' },
    },
    {
      name: 'walker-is-the-bottom',
      severity: 'error',
      comment: 'the walker is pure and imports no later stage',
      from: { path: '^src/walker/' },
      to: { path: '^src/(enforce|policy|report|tui|cli)/' },
    },
    {
      name: 'enforce-before-report',
      severity: 'error',
      comment: 'enforcement never depends on reporting, nor on a particular policy engine',
      from: { path: '^src/enforce/' },
      to: { path: '^src/(policy|report|tui|cli)/' },
    },
    {
      name: 'policy-before-report',
      severity: 'error',
      comment: 'the policy engine builds on the walker and the gate contract only',
      from: { path: '^src/policy/' },
      to: { path: '^src/(report|tui|cli)/' },
    },
    {
      name: 'renderers-without-sdk',
      severity: 'error',
      comment: 'renderers and the TUI read plain report data only',
      from: { path: '^src/(report/render|tui)' },
      to: { path: '@strands-agents/sdk' },
    },
    {
      name: 'program-tables-are-data',
      severity: 'error',
      comment:
        "the shell analysis' program tables (one module per family) import only one another, their option scanner and ownEntry: never the walk, the parser or the reader, so the docs script and the tests load them alone",
      from: { path: '^src/policy/shell/programs/' },
      to: { pathNot: '^src/policy/(shell/programs/|own-entry\\.ts$)' },
    },
    { name: 'no-circular', severity: 'error', from: {}, to: { circular: true } },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
  },
};
