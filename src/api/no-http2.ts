// Stands in for the http2-wrapper package in the build (scripts/build.mjs).
// got imports it at load time for its optional HTTP/2 support, and loading it
// creates a TLS context, which costs every command tens of milliseconds. mfg
// never turns HTTP/2 on (see api/http.ts), so any use of this is a bug.
function unavailable(): never {
  throw new Error('HTTP/2 is not built into mfg; requests use HTTP/1.1')
}

const http2: Record<string, unknown> = new Proxy(
  {},
  {
    get(_target, key) {
      // Module interop probes these; answer them without failing.
      if (key === '__esModule' || key === 'then' || typeof key === 'symbol') return undefined
      return unavailable()
    },
  },
)

export default http2
