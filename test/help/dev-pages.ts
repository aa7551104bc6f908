// bin/dev.js's path (oclif's development mode, the commands read from src/ through
// tsx, the manifest ignored) for many command lines in one process: each line's
// stdout, in order, as one JSON array on the real stdout. dev.test.ts runs it with
// `node --import tsx`, as bin/dev.js runs, for every page of the reference: one
// process reads the sources once where a process per page read them sixty times.
import {join} from 'node:path'

import {execute} from '@oclif/core'

const root = join(import.meta.dirname, '../..')
const lines = JSON.parse(process.argv[2] ?? '[]') as string[][]
const write = process.stdout.write.bind(process.stdout)
const pages: string[] = []
for (const args of lines) {
  let text = ''
  process.stdout.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    text += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8')
    const done = rest.find((x) => typeof x === 'function') as (() => void) | undefined
    done?.()
    return true
  }) as typeof process.stdout.write
  try {
    await execute({development: true, args, loadOptions: {root, ignoreManifest: true}})
  } finally {
    process.stdout.write = write
  }
  pages.push(text)
}
write(JSON.stringify(pages))
