// The pipeline's import direction (walker → enforce → policy → report → cli), checked in `npm run lint`; the
// folders beside the pipeline (stores, otel, tui, renderers, frameworks/strands) and the files at the top of src/
// name what they may import (whitelists), so a new import between them is a decision, not an accident.
// src/frameworks/langgraph/ is the LangGraph.js adapter behind the seam (src/frameworks/seam.ts).
// src/frameworks/strands/ holds every read and write of the SDK's private shape: the walker reads it, the gate
// writes through it, and its self-test installs the gate; what the walker reaches of it reaches no later stage.
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
      name: 'walker-reaches-no-later-stage',
      severity: 'error',
      comment: 'what the walker reads of the SDK (src/frameworks/strands) imports no later stage either',
      from: { path: '^src/walker/' },
      to: { path: '^src/(enforce|policy|report|tui|cli)/', reachable: true },
    },
    {
      name: 'strands-whitelist',
      severity: 'error',
      comment:
        "the SDK's private shape builds on the safe reads and the marks; its check logs and its self-test installs the gate",
      from: { path: '^src/frameworks/strands/' },
      to: {
        path: '^src/',
        pathNot:
          '^src/(frameworks/strands/|frameworks/(versions|seam|installer)\\.ts$|walker/|enforce/|(errors|tree-paths|escape)\\.ts$)',
      },
    },
    {
      name: 'langgraph-whitelist',
      severity: 'error',
      comment:
        'the LangGraph adapter builds on the seam, the safe reads, the marks, the neutral gate (decision, gate answers, digest, records) and the package-name reader',
      from: { path: '^src/frameworks/langgraph/' },
      to: {
        path: '^src/',
        pathNot:
          '^src/(frameworks/langgraph/|frameworks/(seam|installer|versions)\\.ts$|frameworks/strands/sdk-package\\.ts$|walker/|enforce/(accept|approval-request|call|judge|digest|gate|gate-answer|gate-identity|gate-source|mutations|observe|settle|texts|read-decision)\\.ts$|errors\\.ts$|tree-paths\\.ts$)',
      },
    },
    {
      name: 'seam-is-a-leaf',
      severity: 'error',
      comment: 'the seam between the neutral parts and each framework is types only (it may name types of others)',
      from: { path: '^src/frameworks/seam\\.ts$' },
      to: { path: '^src/', dependencyTypesNot: ['type-only'] },
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
    {
      name: 'stores-whitelist',
      severity: 'error',
      comment: "the PostgreSQL store builds on the policy contracts (sinks, approvals, the log's records) and the gate",
      from: { path: '^src/stores/' },
      to: {
        path: '^src/',
        pathNot: '^src/(stores/|policy/|enforce/|errors\\.ts$|auditing\\.ts$|tree-paths\\.ts$|escape\\.ts$)',
      },
    },
    {
      name: 'otel-whitelist',
      severity: 'error',
      comment:
        'OpenTelemetry reads decisions and places: the gate, the walker, the policy records, the errors it throws',
      from: { path: '^src/otel/' },
      to: {
        path: '^src/',
        pathNot: '^src/(otel/|enforce/|walker/|policy/|frameworks/strands/|tree-paths\\.ts$|errors\\.ts$)',
      },
    },
    {
      name: 'tui-whitelist',
      severity: 'error',
      comment: 'the interactive view reads the plain report and its renderers only',
      from: { path: '^src/tui/' },
      to: { path: '^src/', pathNot: '^src/(tui/|report/|tree-paths\\.ts$|escape\\.ts$)' },
    },
    {
      name: 'render-whitelist',
      severity: 'error',
      comment: 'renderers turn plain report data into text',
      from: { path: '^src/report/render/' },
      to: { path: '^src/', pathNot: '^src/(report/|errors\\.ts$|tree-paths\\.ts$|escape\\.ts$)' },
    },
    {
      name: 'escape-is-a-leaf',
      severity: 'error',
      comment: 'escaping imports nothing of gate-audit',
      from: { path: '^src/escape\\.ts$' },
      to: { path: '^src/', pathNot: '^$' },
    },
    {
      name: 'tree-paths-is-a-leaf',
      severity: 'error',
      comment: 'tree paths import nothing of gate-audit',
      from: { path: '^src/tree-paths\\.ts$' },
      to: { path: '^src/', pathNot: '^$' },
    },
    {
      name: 'sdk-version-is-a-leaf',
      severity: 'error',
      comment: 'the SDK range imports nothing of gate-audit but the version order',
      from: { path: '^src/frameworks/(strands/sdk-version|versions)\\.ts$' },
      to: { path: '^src/', pathNot: '^src/frameworks/versions\\.ts$' },
    },
    {
      name: 'sdk-package-is-a-leaf',
      severity: 'error',
      comment:
        "which files are the SDK's is decided on Node's loader thread, the names of a run's steps are read before any SDK copy loads, and the SDK's input key is read by both frameworks' digest: node builtins only",
      from: { path: '^src/frameworks/strands/(sdk-package|run-steps|sdk-input)\\.ts$' },
      to: { path: '^src/', pathNot: '^$' },
    },
    {
      name: 'auditing-whitelist',
      severity: 'error',
      comment: "the auditing flag imports only its marks' keys",
      from: { path: '^src/auditing\\.ts$' },
      to: { path: '^src/', pathNot: '^src/walker/marks\\.ts$' },
    },
    {
      name: 'errors-whitelist',
      severity: 'error',
      comment: 'errors are data: they import only the escaping of what they print',
      from: { path: '^src/errors\\.ts$' },
      to: { path: '^src/', pathNot: '^src/escape\\.ts$' },
    },
    {
      name: 'config-whitelist',
      severity: 'error',
      comment: "the config schema takes its format names from the renderers' registry",
      from: { path: '^src/config\\.ts$' },
      to: { path: '^src/', pathNot: '^src/(report/|errors\\.ts$|escape\\.ts$)' },
    },
    {
      name: 'vitest-whitelist',
      severity: 'error',
      comment: 'the test helper asserts on the coverage report',
      from: { path: '^src/vitest\\.ts$' },
      to: { path: '^src/', pathNot: '^src/(report/|errors\\.ts$)' },
    },
    {
      name: 'index-whitelist',
      severity: 'error',
      comment:
        "the public entry exports the library, never the CLI or the view; guardProcess through the Strands SDK's part of the guard, which joins the guard when it loads",
      from: { path: '^src/index\\.ts$' },
      to: {
        path: '^src/',
        pathNot:
          '^src/(config\\.ts|enforce/|errors\\.ts|policy/|report/|walker/|tree-paths\\.ts|escape\\.ts|auditing\\.ts|frameworks/langgraph/install\\.ts|frameworks/strands/process-guard\\.ts)',
      },
    },
    {
      name: 'langgraph-entry-whitelist',
      severity: 'error',
      comment:
        'the LangGraph entry exports the neutral gate, policies, process guard and reports, and the LangGraph adapter (that it loads no Strands code is proven by test/langgraph.test.ts, in a process where the SDK cannot be resolved)',
      from: { path: '^src/langgraph\\.ts$' },
      to: {
        path: '^src/',
        pathNot:
          '^src/(errors\\.ts|enforce/(gate|process-guard)\\.ts|frameworks/langgraph/install\\.ts|report/(lines|schema|langgraph)\\.ts|policy/)',
      },
    },
    { name: 'no-circular', severity: 'error', from: {}, to: { circular: true } },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
  },
};
