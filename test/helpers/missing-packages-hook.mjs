/**
 * A module resolve hook for tests: the packages named when it is registered (`{ data: { missing: [...] } }`) cannot
 * be found, and the import fails as Node fails one of a package an app never installed (ERR_MODULE_NOT_FOUND,
 * "Cannot find package '<name>' imported from …"), for the package and every subpath of it.
 */
let missing = new Set();

export function initialize(data) {
  missing = new Set(data?.missing ?? []);
}

export async function resolve(specifier, context, next) {
  const name = specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0];
  if (missing.has(name)) {
    const error = new Error(`Cannot find package '${name}' imported from ${context.parentURL}`);
    throw Object.assign(error, { code: 'ERR_MODULE_NOT_FOUND' });
  }
  return next(specifier, context);
}
