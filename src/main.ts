// The oclif entry of the bundle: bin/run.js imports it for every command that
// is not answered by a fast path (--version, help). Commands are built in the
// same esbuild run, so they and this entry share one copy of @oclif/core.
export {execute} from '@oclif/core'
