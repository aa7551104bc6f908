#!/usr/bin/env -S node --import tsx
import {join} from 'node:path'

import {execute} from '@oclif/core'

if (process.env.MFG_HOME) {
  for (const dir of ['CACHE', 'DATA', 'CONFIG'])
    process.env[`MFG_${dir}_DIR`] ??= join(process.env.MFG_HOME, 'oclif', dir.toLowerCase())
}

await execute({development: true, dir: import.meta.url})
