// Preloaded with `node --import` by test/startup/traced.ts: records every
// module the process loads in the file named by MFG_TRACE_LOADS, one URL or
// path per line, so the test can say what a command loaded without timing
// anything. Modules are seen by a resolve hook: where Node has
// module.registerHooks (22.15 and later) it runs in this thread and sees
// import and require alike; elsewhere module.register runs trace-hooks.mjs on
// the loader thread (on Node 26, register prints a deprecation warning, which
// would reach the stderr the tests read). CommonJS modules (which the bundle
// loads through require) are also read from the require cache at exit. Node's
// own modules loaded lazily (such as the fetch implementation behind the
// global FormData) are listed from process.moduleLoadList as `builtin:NAME`.
import {appendFileSync} from 'node:fs'
import * as module from 'node:module'

const out = process.env.MFG_TRACE_LOADS
if (out) {
  if (module.registerHooks) {
    module.registerHooks({
      resolve(specifier, context, next) {
        const result = next(specifier, context)
        appendFileSync(out, `${result.url}\n`)
        return result
      },
    })
  } else {
    module.register(new URL('./trace-hooks.mjs', import.meta.url), {data: {out}})
  }
  const cache = module.createRequire(import.meta.url).cache
  process.on('exit', () => {
    const files = Object.keys(cache)
    const builtins = process.moduleLoadList
      .filter((m) => m.startsWith('NativeModule '))
      .map((m) => `builtin:${m.slice('NativeModule '.length)}`)
    appendFileSync(out, [...files, ...builtins].map((l) => `${l}\n`).join(''))
  })
}
