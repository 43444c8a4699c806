/**
 * "Did you mean": the closest known name to a mistyped one (the policy loader's matcher), as a message tail.
 */
import { closest } from '../policy/load.js';

export { closest };

/** ` | did you mean "x"?` when a close name exists, else an empty string. */
export function didYouMean(name: string, known: Iterable<string>): string {
  const match = closest(name, known);
  return match === undefined ? '' : ` | did you mean "${match}"?`;
}
