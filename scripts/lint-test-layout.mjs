// Tests mirror src/: a test file is `test/<src path>/<module>[.<aspect>].test.ts(x)`, named after the module it
// tests, and reads `describe(<unit>) > describe('when …') > it(…)`. Attack ids are tags in titles (`[A6]`), not
// describe blocks of their own. Run by `npm run lint`.
//
// Three checks, each on every test file (or on the files named):
//   place    the file's path names a module: `test/a/b.c.test.ts` needs `src/a/b.ts`, `src/a/b.tsx` or
//            `src/a/b/index.ts` (the longest dotted prefix wins: `b.c`, then `b`). Folders whose tests have another
//            subject are listed in SUBJECTS below with what their files must name.
//   shape    every `it`/`test` sits under at least two `describe` blocks, the first naming the unit and a later one
//            starting with `when `. A test declared inside a helper function (a shared suite that its caller runs
//            under its own describes) is judged where the function is called, so it is skipped here.
//   tags     no describe title is an attack id (`A1:`, `B2.`, `D:`): the id goes in a title as `[A1]`.
// And one over src/: every module has a test file of its name, or names the test file that covers it in
// TESTED_BY (which must exist, and must not list a module that has a test file of its own).
//
// Usage: node scripts/lint-test-layout.mjs [--root DIR] [test file …]   (default: every test file, plus the src/
// check; --root checks another tree laid out as this one, as the script's own test does)
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';

const argv = process.argv.slice(2);
const rootAt = argv.indexOf('--root');
const root = rootAt < 0 ? resolve(new URL('..', import.meta.url).pathname) : resolve(argv.splice(rootAt, 2)[1] ?? '.');
const TEST = /\.test\.tsx?$/;

/**
 * Test folders (and top-level names) whose subject is not a module of src/: each maps a test's module name to the
 * file or folder it must name. `null`: any name (a suite that crosses modules on purpose).
 */
const SUBJECTS = [
  // Suites that attack the product as a whole, each named after the property it holds (fail closed, tamper, …).
  { under: 'reliability/', subject: null },
  // The bundled scenario fixtures, run as users run them.
  { under: 'fixtures/', subject: (name) => [`fixtures/${name}`] },
  // The repository's scripts, and the import rules `npm run lint` checks with dependency-cruiser.
  { under: 'scripts/dependency-rules', subject: () => ['.dependency-cruiser.cjs'] },
  { under: 'scripts/', subject: (name) => [`scripts/${name}.mjs`, `scripts/${name}.sh`] },
  // Helpers shared across test folders, tested beside themselves.
  { under: 'helpers/', subject: (name) => [`test/helpers/${name}.ts`] },
  // The project's documents and package: the README's commands, the docs' links, what `npm pack` ships.
  { under: 'readme', subject: () => ['README.md'] },
  { under: 'docs-links', subject: () => ['docs'] },
  { under: 'docs-examples', subject: () => ['docs'] },
  { under: 'packaging', subject: () => ['package.json'] },
];

/**
 * Modules of src/ tested through another module's test file (a renderer through the renderer map's suite, a type
 * file through its users, …), each with the file that covers it.
 */
const TESTED_BY = existsSync(join(root, 'test/tested-by.json'))
  ? JSON.parse(readFileSync(join(root, 'test/tested-by.json'), 'utf8'))
  : {};

function files(dir, pattern) {
  return readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' })
    .filter((file) => pattern.test(file) && !file.includes('.generated'))
    .map((file) => join(dir, file));
}

function srcModules() {
  return files('src', /\.tsx?$/)
    .filter((file) => !file.endsWith('.d.ts'))
    .map((file) => file.replace(/^src\//, '').replace(/\.tsx?$/, ''));
}

/** The module (src-relative, no extension) a test file is named after, or undefined. */
function moduleOf(testFile, modules) {
  const rel = testFile.replace(/^test\//, '').replace(TEST, '');
  const slash = rel.lastIndexOf('/');
  const dir = slash < 0 ? '' : rel.slice(0, slash + 1);
  const segments = rel.slice(slash + 1).split('.');
  for (let n = segments.length; n > 0; n--) {
    const name = `${dir}${segments.slice(0, n).join('.')}`;
    if (modules.has(name)) return name;
    if (modules.has(`${name}/index`)) return `${name}/index`;
  }
  return undefined;
}

function place(testFile, modules) {
  const rel = testFile.replace(/^test\//, '');
  const rule = SUBJECTS.find((s) => rel.startsWith(s.under));
  if (rule) {
    if (rule.subject === null) return undefined;
    const name = rel.slice(rule.under.length).replace(TEST, '').split('.')[0];
    const wanted = rule.subject(name);
    return wanted.some((path) => existsSync(join(root, path)))
      ? undefined
      : `names ${wanted.join(' or ')}, which does not exist`;
  }
  return moduleOf(testFile, modules) === undefined
    ? `names no module of src/ (test/<src path>/<module>[.<aspect>].test.ts)`
    : undefined;
}

const TEST_CALLS = new Set(['it', 'test']);

/** The identifier a call's callee chain starts from: `it` for `it.skipIf(x)(…)`, `describe` for `describe.each(…)(…)`. */
function rootName(expression) {
  let node = expression;
  while (ts.isCallExpression(node) || ts.isPropertyAccessExpression(node)) node = node.expression;
  return ts.isIdentifier(node) ? node.text : undefined;
}

/** A call's title when it is written out (a string or a template's head), else undefined. */
function titleOf(call) {
  const first = call.arguments[0];
  if (first === undefined) return undefined;
  if (ts.isStringLiteralLike(first)) return first.text;
  if (ts.isTemplateExpression(first)) return first.head.text;
  return undefined;
}

const ATTACK_ID = /^[A-Z]\d*[a-z]?[:.](\s|$)/;

function shape(testFile) {
  const text = readFileSync(join(root, testFile), 'utf8');
  const kind = testFile.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const source = ts.createSourceFile(testFile, text, ts.ScriptTarget.Latest, true, kind);
  const problems = [];
  let tests = 0;
  const where = (node) => `${testFile}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
  const visit = (node, describes, inHelper) => {
    if (ts.isCallExpression(node) && !ts.isCallExpression(node.parent)) {
      const name = rootName(node.expression);
      if (name === 'describe') {
        const title = titleOf(node);
        if (title !== undefined && ATTACK_ID.test(title)) {
          problems.push(`${where(node)}: describe '${title}' is an attack id; put it in a title as [id]`);
        }
        for (const argument of node.arguments) visit(argument, [...describes, title ?? '\u0000'], inHelper);
        return;
      }
      if (TEST_CALLS.has(name) && ts.isExpressionStatement(node.parent)) {
        tests++;
        if (!inHelper) {
          const whenAt = describes.findIndex((title, i) => i > 0 && title.startsWith('when '));
          if (describes.length < 2 || whenAt < 0) {
            problems.push(
              `${where(node)}: '${titleOf(node) ?? '…'}' is not under describe(<unit>) > describe('when …')`,
            );
          }
        }
        return;
      }
    }
    // A function that is not a describe's or a test's own body: tests declared in it are a shared suite.
    const helper =
      inHelper ||
      ((ts.isFunctionDeclaration(node) || ts.isFunctionExpression(node) || ts.isArrowFunction(node)) &&
        !(ts.isCallExpression(node.parent) && ['describe', 'it', 'test'].includes(rootName(node.parent.expression))));
    ts.forEachChild(node, (child) => visit(child, describes, helper));
  };
  visit(source, [], false);
  return { problems, tests };
}

function main(argv) {
  const all = argv.length === 0;
  const testFiles = all ? files('test', TEST) : argv.map((file) => relative(root, resolve(root, file)));
  const modules = new Set(srcModules());
  const problems = [];
  let tests = 0;
  for (const file of testFiles) {
    const wrong = place(file, modules);
    if (wrong !== undefined) problems.push(`${file}: ${wrong}`);
    const found = shape(file);
    tests += found.tests;
    problems.push(...found.problems);
  }
  if (all) {
    const named = new Set(testFiles.map((file) => moduleOf(file, modules)).filter((m) => m !== undefined));
    for (const module of modules) {
      const by = TESTED_BY[module];
      if (named.has(module)) {
        if (by !== undefined) problems.push(`test/tested-by.json: ${module} has a test file of its own; remove it here`);
      } else if (by === undefined) {
        problems.push(`src/${module}: no test file of its name (test/${module}.test.ts); write one, or name the test file that covers it in test/tested-by.json`);
      } else if (typeof by.why !== 'string' || by.why.trim() === '') {
        problems.push(`test/tested-by.json: ${module} names no reason ("why") its test file covers it`);
      } else if (typeof by.test !== 'string' || !existsSync(join(root, by.test))) {
        problems.push(`test/tested-by.json: ${module} is said to be tested by ${by.test}, which does not exist`);
      }
    }
    for (const module of Object.keys(TESTED_BY)) {
      if (!modules.has(module)) problems.push(`test/tested-by.json: ${module} is no module of src/`);
    }
  }
  for (const problem of problems) console.error(problem);
  const count = `${testFiles.length} test files, ${tests} tests declared`;
  if (problems.length > 0) {
    console.error(`test layout: ${problems.length} problems (${count})`);
    process.exit(1);
  }
  console.log(`test layout: every file mirrors src/ and reads describe(unit) > describe('when …') (${count})`);
}

main(argv);
