// Preloaded with `node --import` by test/startup/startup.test.ts: records
// every module the process loads in the file named by MFG_TRACE_LOADS, one
// URL or path per line, so the test can say what a command loaded without
// timing anything. ES modules are seen by a resolve hook; CommonJS modules
// (which the bundle loads through require) are read from the require cache
// at exit. Node's own modules loaded lazily (such as the fetch implementation
// behind the global FormData) are listed from process.moduleLoadList as
// `builtin:NAME`.
import {appendFileSync} from 'node:fs'
import {createRequire, register} from 'node:module'

const out = process.env.MFG_TRACE_LOADS
if (out) {
  register(new URL('./trace-hooks.mjs', import.meta.url), {data: {out}})
  const cache = createRequire(import.meta.url).cache
  process.on('exit', () => {
    const files = Object.keys(cache)
    const builtins = process.moduleLoadList
      .filter((m) => m.startsWith('NativeModule '))
      .map((m) => `builtin:${m.slice('NativeModule '.length)}`)
    appendFileSync(out, [...files, ...builtins].map((l) => `${l}\n`).join(''))
  })
}
