// Build stand-in for minimatch inside the bundled @oclif/core, which uses it to
// match package.json dependencies against the `oclif.plugins` list: names or
// globs with `*` (any run of characters but `/`) and `?` (one character).
'use strict'

function toRegExp(pattern) {
  let source = ''
  for (const ch of pattern) {
    if (ch === '*') source += '[^/]*'
    else if (ch === '?') source += '[^/]'
    else source += ch.replace(/[\\^$.+()|[\]{}]/g, '\\$&')
  }
  return new RegExp(`^${source}$`)
}

function minimatch(name, pattern) {
  return toRegExp(pattern).test(name)
}

module.exports = {minimatch}
