// Resolve hook for trace-loads.mjs on a Node without module.registerHooks: runs on the loader thread and appends each
// resolved URL to the trace file.
import {appendFileSync} from 'node:fs'

let out

export function initialize(data) {
  out = data.out
}

export async function resolve(specifier, context, next) {
  const result = await next(specifier, context)
  if (out) appendFileSync(out, `${result.url}\n`)
  return result
}
