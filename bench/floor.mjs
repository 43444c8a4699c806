// The floor of `gate-audit <fixture>`: a bare Node script that loads the same fixture with the same loader
// (jiti, with the options src/cli/load.ts uses) and prints its export names.
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createJiti } from 'jiti';

const absolute = resolve(process.argv[2]);
const jiti = createJiti(pathToFileURL(absolute).href, {
  tsconfigPaths: true,
  moduleCache: true,
  nativeModules: ['@strands-agents/sdk'],
});
const namespace = await jiti.import(absolute);
process.stdout.write(`${JSON.stringify(Object.keys(namespace))}\n`, () => process.exit(0));
