#!/usr/bin/env -S node --import tsx
// mfg from its TypeScript sources, for development. In development mode oclif loads
// the commands, the help class and the hooks from src/ through tsx; ignoreManifest has
// it read the commands themselves rather than oclif.manifest.json (which the build
// writes from dist/), so that an edit shows at once, in help too. No build is needed.
// (No apostrophe in the lines above the imports: after the #! line, the import lexer
// of tsx reads one as the start of a string and fails.)
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'

import {execute} from '@oclif/core'

if (process.env.MFG_HOME) {
  for (const dir of ['CACHE', 'DATA', 'CONFIG'])
    process.env[`MFG_${dir}_DIR`] ??= join(process.env.MFG_HOME, 'oclif', dir.toLowerCase())
}

await execute({
  development: true,
  loadOptions: {root: fileURLToPath(new URL('..', import.meta.url)), ignoreManifest: true},
})
