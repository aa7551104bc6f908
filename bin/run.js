#!/usr/bin/env node
import {readFileSync} from 'node:fs'
import {join} from 'node:path'

const args = process.argv.slice(2)

// `mfg --version` answers without loading oclif: it is what scripts call most often.
if (args.length === 1 && (args[0] === '--version' || args[0] === '-v')) {
  const {version} = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'))
  process.stdout.write(`mfg/${version} ${process.platform}-${process.arch} node-${process.version}\n`)
} else {
  // MFG_HOME relocates every file mfg writes, oclif's own cache and data included.
  if (process.env.MFG_HOME) {
    for (const dir of ['CACHE', 'DATA', 'CONFIG']) {
      process.env[`MFG_${dir}_DIR`] ??= join(process.env.MFG_HOME, 'oclif', dir.toLowerCase())
    }
  }
  const {execute} = await import('@oclif/core')
  await execute({dir: import.meta.url})
}
