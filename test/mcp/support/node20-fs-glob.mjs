// The conformance CLI imports `globSync` from 'fs', which Node added in 22. On Node 20 this
// loader hands that one import a module with everything of node:fs plus `glob`'s globSync
// (used only by its tier-report command, not by server scenarios). Load with
// NODE_OPTIONS="--import=./test/mcp/support/node20-fs-glob.mjs".
import { register } from 'node:module';

register(
  'data:text/javascript,' +
    encodeURIComponent(`
      const shim = 'data:text/javascript,' + encodeURIComponent("export * from 'node:fs'; export { default } from 'node:fs'; export { globSync } from '${import.meta.resolve('glob')}';");
      export async function resolve(specifier, context, next) {
        if ((specifier === 'fs' || specifier === 'node:fs') && context.parentURL && context.parentURL.includes('@modelcontextprotocol/conformance')) {
          return { url: shim, shortCircuit: true };
        }
        return next(specifier, context);
      }
    `),
  import.meta.url,
);
