/** `--import` this (in NODE_OPTIONS, so child processes get it too) to hide @strands-agents/sdk from a process. */
import { register } from 'node:module';

register('./missing-packages-hook.mjs', import.meta.url, { data: { missing: ['@strands-agents/sdk'] } });
