// Only src/frameworks/strands/ may name the SDK's private fields and methods (`_agent`, `_hooksRegistry`,
// `_hookRegistry`, `_toolRegistry`, `_backgroundTasks`, …): they are string literals and property names, which
// import rules cannot see. The names are those the folder itself writes (every `'_x'` string, every segment of a
// dotted `'_x._y'` field path of its shape list, every `obj._x` it reads), so the list cannot drift from what the
// folder reads. Elsewhere in src/, a string literal (or a template's text) equal to one of them, or a property
// access `obj._x` / `obj?._x` whose object is not `this` (gate-audit's own private fields are `this._x`), fails.
// So does importing (or re-exporting) one of the folder's constants that hold the names (`HOOK_REGISTRY_FIELD`, any
// `*_FIELD`, `agentRegistryFields`): a constant carries the name past a check of literals.
//
// Usage: node scripts/lint-sdk-fields.mjs [file …]   (default: every .ts/.tsx file of src/)
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';

const root = resolve(new URL('..', import.meta.url).pathname);
const folder = join(root, 'src/frameworks/strands');
const PRIVATE = /^_[A-Za-z]\w*$/;
// The folder's exports that hold field names rather than read them.
const FIELD_CONSTANT = /^(?:[A-Z_]+_FIELDS?|agentRegistryFields)$/;

function sourceFiles(dir) {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((file) => /\.tsx?$/.test(file) && !file.endsWith('.d.ts'))
    .map((file) => join(dir, file));
}

function parse(file) {
  const text = readFileSync(file, 'utf8');
  return ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
}

/** Calls `visit(kind, name, node)` for each string text and each non-`this` property name starting with `_`. */
function walk(source, visit) {
  const step = (node) => {
    if (ts.isStringLiteralLike(node) || ts.isTemplateHead(node) || ts.isTemplateMiddle(node) || ts.isTemplateTail(node)) {
      visit('string', node.text, node);
    } else if (ts.isPropertyAccessExpression(node) && PRIVATE.test(node.name.text)) {
      if (node.expression.kind !== ts.SyntaxKind.ThisKeyword) visit('property', node.name.text, node);
    }
    ts.forEachChild(node, step);
  };
  step(source);
}

// The names the folder writes.
const names = new Set();
for (const file of sourceFiles(folder)) {
  walk(parse(file), (kind, text) => {
    const parts = kind === 'string' ? text.split('.') : [text];
    for (const part of parts) if (PRIVATE.test(part)) names.add(part);
  });
}
if (names.size < 10) {
  console.error(`lint-sdk-fields: found only ${names.size} SDK private names in src/frameworks/strands/; is the folder there?`);
  process.exit(2);
}

const args = process.argv.slice(2);
const files = args.length > 0 ? args.map((f) => resolve(f)) : sourceFiles(join(root, 'src'));
const problems = [];
for (const file of files) {
  if (file.startsWith(folder + '/')) continue;
  const source = parse(file);
  // The folder's constants naming the fields (`HOOK_REGISTRY_FIELD`, …) carry the names past the check above: outside
  // the folder, importing one is naming the field.
  for (const statement of source.statements) {
    const from = ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement) ? statement.moduleSpecifier : undefined;
    if (from === undefined || !ts.isStringLiteral(from) || !from.text.includes('frameworks/strands/')) continue;
    const clause = ts.isImportDeclaration(statement) ? statement.importClause?.namedBindings : statement.exportClause;
    if (clause === undefined || !(ts.isNamedImports(clause) || ts.isNamedExports(clause))) continue;
    for (const element of clause.elements) {
      const imported = (element.propertyName ?? element.name).text;
      if (!FIELD_CONSTANT.test(imported)) continue;
      const { line, character } = source.getLineAndCharacterOfPosition(element.getStart(source));
      problems.push(`${relative(root, file)}:${line + 1}:${character + 1} imports "${imported}", which names the SDK's private fields`);
    }
  }
  walk(source, (kind, text, node) => {
    // A string names a field when it is the field, or a dotted path with it as a segment (`'_a._b'`).
    const hit = kind === 'string' ? text.split('.').find((part) => names.has(part)) : names.has(text) ? text : undefined;
    if (hit === undefined) return;
    const { line, character } = source.getLineAndCharacterOfPosition(node.getStart(source));
    problems.push(`${relative(root, file)}:${line + 1}:${character + 1} names the SDK's private "${hit}" (${kind})`);
  });
}
if (problems.length > 0) {
  console.error(problems.join('\n'));
  console.error(
    `\n${problems.length} place(s) name a private field of @strands-agents/sdk outside src/frameworks/strands/: ` +
      'read or write it through a function of that folder instead',
  );
  process.exit(1);
}
console.log(`lint-sdk-fields: ${names.size} SDK private names, none outside src/frameworks/strands/`);
