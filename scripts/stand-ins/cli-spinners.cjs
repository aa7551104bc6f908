// Build stand-in for cli-spinners inside the bundled @oclif/core: mfg draws its
// own progress (src/cli/progress.ts) and never starts oclif's spinner, so one
// plain spinner under the names oclif asks for is enough.
'use strict'

const plain = {interval: 120, frames: ['-', '\\', '|', '/']}

module.exports = {line: plain, dots2: plain, dots: plain}
