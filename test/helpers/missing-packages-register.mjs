/** `--import` this to hide the packages GATE_AUDIT_TEST_MISSING names (comma-separated) from a process. */
import { register } from 'node:module';

const missing = (process.env.GATE_AUDIT_TEST_MISSING ?? '').split(',').filter((name) => name !== '');
register('./missing-packages-hook.mjs', import.meta.url, { data: { missing } });
