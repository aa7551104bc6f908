#!/usr/bin/env node
import {join} from 'node:path'

import {execute} from '@oclif/core'

// MFG_HOME relocates every file mfg writes, oclif's own cache and data included.
if (process.env.MFG_HOME) {
  for (const dir of ['CACHE', 'DATA', 'CONFIG'])
    process.env[`MFG_${dir}_DIR`] ??= join(process.env.MFG_HOME, 'oclif', dir.toLowerCase())
}

await execute({dir: import.meta.url})
