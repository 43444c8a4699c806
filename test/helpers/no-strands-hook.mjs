/** A module resolve hook for tests: @strands-agents/sdk cannot be found, as in an app that never installed it. */
export async function resolve(specifier, context, next) {
  if (specifier === '@strands-agents/sdk' || specifier.startsWith('@strands-agents/sdk/')) {
    throw Object.assign(new Error(`Cannot find package '${specifier}'`), { code: 'ERR_MODULE_NOT_FOUND' });
  }
  return next(specifier, context);
}
