/**
 * What each key does to the view's state, as a pure function. Several keys can arrive in one chunk (a
 * paste, a fast typist, tmux send-keys), so a chunk is split into single key presses first.
 */
import { type TreeNode, visibleRows } from './tree.js';

/** Everything the person can change in the view. */
export interface ViewState {
  readonly expanded: ReadonlySet<string>;
  readonly selectedKey: string | undefined;
  readonly notGatedOnly: boolean;
  readonly filter: string;
  readonly editing: boolean;
  readonly help: boolean;
  readonly quit: boolean;
}

/** One key press: a character, or a named key. */
export type KeyPress =
  | { readonly char: string }
  | { readonly name: 'up' | 'down' | 'left' | 'right' | 'return' | 'escape' | 'backspace' };

/** The flags ink reports for a chunk of input. */
export interface InkKey {
  readonly upArrow: boolean;
  readonly downArrow: boolean;
  readonly leftArrow: boolean;
  readonly rightArrow: boolean;
  readonly return: boolean;
  readonly escape: boolean;
  readonly backspace: boolean;
  readonly delete: boolean;
  readonly ctrl: boolean;
  readonly meta: boolean;
}

/** Splits what ink reports for one chunk into key presses. */
export function keyPresses(input: string, key: InkKey): KeyPress[] {
  if (key.upArrow) return [{ name: 'up' }];
  if (key.downArrow) return [{ name: 'down' }];
  if (key.leftArrow) return [{ name: 'left' }];
  if (key.rightArrow) return [{ name: 'right' }];
  if (key.escape) return [{ name: 'escape' }];
  if (key.backspace || key.delete) return [{ name: 'backspace' }];
  if (key.return && input.length <= 1) return [{ name: 'return' }];
  if (key.ctrl || key.meta) return [];
  return [...input].map((char) => (char === '\r' || char === '\n' ? { name: 'return' as const } : { char }));
}

/** Applies one key press. */
export function reduce(state: ViewState, press: KeyPress, forest: readonly TreeNode[]): ViewState {
  if (state.help) return { ...state, help: false };
  if (state.editing) {
    if ('char' in press) return { ...state, filter: state.filter + press.char };
    if (press.name === 'return') return { ...state, editing: false };
    if (press.name === 'escape') return { ...state, editing: false, filter: '' };
    if (press.name === 'backspace') return { ...state, filter: state.filter.slice(0, -1) };
    return state;
  }
  const rows = visibleRows(forest, state.expanded, { notGatedOnly: state.notGatedOnly, text: state.filter });
  const found = rows.findIndex((r) => r.key === state.selectedKey);
  const selected = found === -1 ? 0 : found;
  const current = rows[selected];
  const select = (index: number): ViewState => ({
    ...state,
    selectedKey: rows[Math.max(0, Math.min(rows.length - 1, index))]?.key ?? state.selectedKey,
  });
  const open = (value: boolean): ViewState => {
    if (current === undefined || !current.hasChildren) return state;
    const expanded = new Set(state.expanded);
    if (value) expanded.add(current.key);
    else expanded.delete(current.key);
    return { ...state, expanded, selectedKey: current.key };
  };
  const name = 'name' in press ? press.name : undefined;
  const char = 'char' in press ? press.char : undefined;
  if (char === 'q' || name === 'escape') return { ...state, quit: true };
  if (char === 'j' || name === 'down') return select(selected + 1);
  if (char === 'k' || name === 'up') return select(selected - 1);
  if (char === 'g') return select(0);
  if (char === 'G') return select(rows.length - 1);
  if (char === ' ' || name === 'return') return open(!(current?.expanded ?? false));
  if (name === 'right') return open(true);
  if (name === 'left') return open(false);
  if (char === 'u') return { ...state, notGatedOnly: !state.notGatedOnly };
  if (char === '/') return { ...state, editing: true };
  if (char === '?') return { ...state, help: true };
  return state;
}
