// The oclif entry of the bundle: bin/run.js imports it for every command that
// is not answered by a fast path (--version, help). Commands are built in the
// same esbuild run, so they and this entry share one copy of @oclif/core.
import {settings} from '@oclif/core'

// The bundle is what runs, whatever NODE_ENV says. With NODE_ENV=development or
// test (vitest sets test for the processes a test starts) oclif would otherwise
// register tsx or ts-node and read tsconfig.json with the TypeScript compiler to
// map dist/ back to src/, which a bundle cannot be (its commands share chunks);
// on Node 26 tsx's module.register() then prints a deprecation warning. bin/dev.js
// imports @oclif/core itself, so its development mode is untouched.
settings.enableAutoTranspile = false

export {execute} from '@oclif/core'
