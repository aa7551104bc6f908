// Build stand-in for debug inside the bundled @oclif/core, which uses it for
// its own trace lines (DEBUG=oclif*). It keeps that working, in plain text on
// stderr, secrets masked: DEBUG lists namespaces separated by commas or spaces, `*`
// matches any run of characters and a leading `-` excludes. Loading the real one also
// loads tty and supports-color at every start.
'use strict'

// eslint-disable-next-line @typescript-eslint/no-require-imports -- a CommonJS file, bundled as one
const {format} = require('node:util')

function patterns() {
  const include = []
  const exclude = []
  for (const part of String(process.env.DEBUG ?? '').split(/[\s,]+/)) {
    if (part === '') continue
    const negated = part.startsWith('-')
    const body = (negated ? part.slice(1) : part).replace(/[.+?^${}()|[\]\\]/g, '\\$&').replaceAll('*', '.*')
    ;(negated ? exclude : include).push(new RegExp(`^${body}$`))
  }
  return {include, exclude}
}

function enabled(namespace) {
  const {include, exclude} = patterns()
  return include.some((re) => re.test(namespace)) && !exclude.some((re) => re.test(namespace))
}

/**
 * A trace line with the secrets it may hold masked as mfg masks them (all but
 * the last 4 characters): oclif traces the command line, which can carry
 * --api-key, --auth-token or --secret, and an API key anywhere.
 */
function masked(line) {
  const mask = (secret) => (secret.length <= 8 ? '****' : `****${secret.slice(-4)}`)
  return line
    .replace(
      /(--(?:api-key|auth-token|secret)(?:=|['"]?,\s*['"]))([^'"\s,\]]+)/g,
      (_m, flag, secret) => flag + mask(secret),
    )
    .replace(/pk_business_[A-Za-z0-9_-]+/g, mask)
}

function createDebug(namespace) {
  const on = enabled(namespace)
  const log = (...args) => {
    if (on) process.stderr.write(`${namespace} ${masked(format(...args))}\n`)
  }
  log.namespace = namespace
  log.enabled = on
  log.extend = (sub, delimiter = ':') => createDebug(`${namespace}${delimiter}${sub}`)
  return log
}

createDebug.enabled = enabled
module.exports = createDebug
module.exports.default = createDebug
