/**
 * Here-document bodies: read after the newline that ends their command line, in order, up to the delimiter line
 * (after leading tabs with `<<-`); a quoted delimiter makes the body data, an unquoted one a text whose expansions
 * run and in which quotes are plain characters; what bash would read otherwise is refused.
 */
import { describe, expect, it } from 'vitest';
import { analyzeShell } from '../../../../src/policy/shell/analyze.js';
import { readShell } from '../../../../src/policy/shell/reader/index.js';
import { countSubstitutionMarks } from '../../../../src/policy/shell/words.js';
import { hasShells, runs } from './bash.js';
import { render } from './render.js';

describe('here-documents', () => {
  describe('when the delimiter is quoted', () => {
    it('with a quoted delimiter are data: no expansion in the body is read', () => {
      for (const delimiter of ["'EOF'", '"EOF"', '\\EOF', 'E"O"F', "E'OF'"]) {
        expect(render(`cat <<${delimiter}\n$(rm x) \`rm y\` it's\nEOF`)).toBe(
          `cat <<${delimiter}⟪$(rm x) \`rm y\` it's\n⟫`,
        );
        const [stmt] = readShell(`cat <<${delimiter}\n$(rm x)\nEOF`, 'bash').Stmts;
        expect(stmt?.Redirs[0]?.Hdoc?.Parts).toEqual([{ type: 'Lit', Value: '$(rm x)\n' }]);
      }
    });
  });

  describe('when the delimiter is unquoted', () => {
    it('with an unquoted delimiter have their expansions read, and quotes in them are characters', () => {
      const [stmt] = readShell('cat <<EOF\nit\'s $(rm x) "${y:-a}" `z`\nEOF', 'bash').Stmts;
      expect(stmt?.Redirs[0]?.Hdoc?.Parts.map((p) => p.type)).toEqual([
        'Lit',
        'CmdSubst',
        'Lit',
        'ParamExp',
        'Lit',
        'CmdSubst',
        'Lit',
      ]);
    });
  });

  describe('when the body is read up to its delimiter', () => {
    it('are read in order after the line that holds them, and the line goes on after the last', () => {
      expect(render('cat <<A <<-B; ls\na\nA\n\tb\n\tB\nwc')).toBe('cat <<A⟪a\n⟫ <<-B⟪\tb\n⟫; ls; wc');
      expect(render('cat <<A | wc\nx\nA')).toBe('⟨cat <<A⟪x\n⟫ | wc⟩');
      expect(render('echo $(cat <<E\nx\nE\n)')).toBe('echo $(cat <<E⟪x\n⟫)');
      expect(render('if true; then cat <<E\nx\nE\nfi')).toBe('if [true] then [cat <<E⟪x\n⟫] fi');
      expect(render('cat <<E\nE')).toBe('cat <<E⟪⟫');
    });

    it('end only at a line that is the delimiter (not one that starts with it)', () => {
      expect(render('cat <<EOF\nEOF is the end\nEOF')).toBe('cat <<EOF⟪EOF is the end\n⟫');
      expect(render('cat <<EOF\n EOF\nEOF')).toBe('cat <<EOF⟪ EOF\n⟫');
    });
  });

  describe('when the here-document is malformed', () => {
    it.each([
      ['cat <<EOF', /without its body/],
      ['cat <<EOF\nx', /without its delimiter line/],
      ['cat <<$x\nx\n$x', /delimiter that is not plain text/],
      ['cat <<EOF\na \\\nEOF\nEOF', /line join in an unquoted here-document body/],
      ['cat <<EOF\n$(rm x\nEOF\n)', /without its \)/],
      ['cat <<EOF $(echo\n)\nx\nEOF', /here-documents outside it wait/],
      ['echo $(cat <<EOF)\nx\nEOF', /body is not inside it/],
      ['cat <<#x', /without its target/],
    ])('refuses %j', (line, why) => {
      expect(() => readShell(line, 'bash')).toThrow(why);
    });
  });

  describe('when bash runs the line', () => {
    it.skipIf(!hasShells)('are read as bash reads them', () => {
      expect(runs("cat <<'EOF'\n$(rm x)\nEOF")).toEqual(['cat']);
      expect(runs("cat <<EOF\nit's $(rm x)\nEOF")).toEqual(['rm x', 'cat']);
      expect(runs('cat <<A <<B; ls\na\nA\nb $(rm x)\nB\nwc')).toEqual(['rm x', 'cat', 'ls', 'wc']);
      expect(runs('cat <<EOF\nEOF is the end\nEOF\nls')).toEqual(['cat', 'ls']);
    });
  });

  describe('when the walk reads a quoted body', () => {
    it('are no longer refused by the walk for a quoted body holding $( or an apostrophe before one', () => {
      expect(analyzeShell("cat <<'EOF'\n$(rm x)\nEOF", 'bash').map((p) => [p.program, p.opaque])).toEqual([
        ['cat', undefined],
      ]);
      expect(analyzeShell("cat <<EOF\nit's $(ls)\nEOF", 'bash').map((p) => [p.program, p.opaque])).toEqual([
        ['ls', undefined],
        ['cat', undefined],
      ]);
    });
  });
});

describe('countSubstitutionMarks, the count the walk checks the parts against', () => {
  describe('when a line holds substitutions', () => {
    it.each([
      ["cat <<'EOF'\n$(ls) `ls`\nEOF", 0, 0],
      ['cat <<\\EOF\n$(ls)\nEOF\necho $(ls)', 1, 0],
      ["cat <<EOF\nit's $(ls) `ls`\nEOF", 1, 2],
      ['cat <<EOF # a comment\n$(ls) \\$(ls)\nEOF', 1, 0],
      ["cat <<-'A' <<B\n\t$(x)\n\tA\n$(y)\nB", 1, 0],
      ['echo $((1<<2))\nls $(pwd)', 2, 0],
      ["echo '$(x)' \"$(y)\" $'$(z)' # $(w)", 1, 0],
    ])('%j holds %i $( and %i backquotes', (line, parens, backquotes) => {
      expect(countSubstitutionMarks(line)).toEqual({ parens, backquotes });
    });
  });
});
