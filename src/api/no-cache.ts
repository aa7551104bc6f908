// Stands in for the cacheable-request package in the build (scripts/build.mjs).
// got imports it at load time for its optional response cache (the `cache`
// option), with keyv and http-cache-semantics behind it; mfg never passes a
// cache (see api/http.ts), so loading them would only slow every command.
/** got checks errors against this class; nothing here ever throws one. */
export class CacheError extends Error {}

export default class CacheableRequest {
  constructor() {
    throw new Error('HTTP response caching is not built into mfg')
  }
}
