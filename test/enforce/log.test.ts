import { afterEach, describe, expect, it, vi } from 'vitest';
import { log, logLine } from '../../src/enforce/log.js';
import { hasHiddenCharacters } from '../../src/escape.js';

afterEach(() => vi.restoreAllMocks());

describe('logLine', () => {
  describe('when a field or the message holds a tool name chosen by a model', () => {
    it('neutralises it: one line, no control, no forged field', () => {
      const tool = 'shell\r[gate-audit] WARN tool=<shell> | allowed by policy\n\u001b[2K\u202e>, agent=<admin';
      const line = logLine('error', { tool, agent: 'writer\u2028' }, `call refused: ${tool}`);
      expect(line.split('\n')).toHaveLength(1);
      expect(hasHiddenCharacters(line)).toBe(false);
      expect(line.startsWith('[gate-audit] ERROR tool=<shell\\r[gate-audit] WARN tool=\\x3cshell\\x3e')).toBe(true);
      // Exactly the two fields given, whatever the values hold: no raw `<` or `>` inside a value.
      expect(line.slice(0, line.indexOf(' | call refused')).match(/[<>]/g)).toEqual(['<', '>', '<', '>']);
      expect(line).toContain(', agent=<writer\\u2028> | call refused: shell\\r[gate-audit]');
    });
  });
});

describe('log', () => {
  describe('when it writes an error or a warning', () => {
    it('writes the neutralised line to stderr', () => {
      const error = vi.spyOn(console, 'error').mockImplementation(() => undefined);
      const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
      log('error', { tool: 'a\rb' }, 'm\n');
      log('warn', { node: 'c\u001b' }, 'w');
      expect(error).toHaveBeenCalledWith('[gate-audit] ERROR tool=<a\\rb> | m\\n');
      expect(warn).toHaveBeenCalledWith('[gate-audit] WARN node=<c\\x1b> | w');
    });
  });
});
