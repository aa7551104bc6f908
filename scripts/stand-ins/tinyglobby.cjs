// Build stand-in for tinyglobby inside the bundled @oclif/core. oclif globs the
// commands directory only when a plugin has no oclif.manifest.json; the build
// always writes one, so reaching this means a broken install.
'use strict'

function missingManifest() {
  throw new Error('oclif.manifest.json is missing next to dist/commands: rebuild mfg with `npm run build`')
}

module.exports = {glob: async () => missingManifest(), globSync: missingManifest}
