/**
 * GitHub's runner's rule for workflow commands, written apart from the code under test so the tests can check
 * every output by it: a line is read as a command when it holds `##[` anywhere (the older syntax), or starts
 * with `::` after white space as .NET counts it (`Char.IsWhiteSpace`, the Unicode spaces included). Lines end
 * at `\n`, `\r` or `\r\n`; command names are read in any case, so the rule looks at the syntax alone.
 */

/** What .NET's `Char.IsWhiteSpace` counts (U+180E too, as older .NET did): the runner trims it before `::`. */
const DOTNET_SPACE = /^[\t\n\v\f\r \u0085\u00a0\u1680\u180e\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]*/u;

/**
 * Every line of an output that GitHub's runner would read as a workflow command.
 *
 * @param output - stdout, stderr or a report file, as a runner would read it
 */
export function runnerCommands(output: string): string[] {
  return output
    .split(/\r\n|\r|\n/)
    .filter((line) => line.includes('##[') || line.replace(DOTNET_SPACE, '').startsWith('::'));
}

/** The `github` format's own command lines: the level, escaped properties, `::`, the message. */
export const OWN_COMMAND = /^::(error|warning|notice)( [^:\r\n]*)?::[^\r\n]*$/;
