/**
 * Finds where a JSON text first goes wrong. V8 does not always say (an
 * "Unexpected token" message carries no position), so this small validating
 * scanner walks the text the way JSON.parse would and returns the offset of
 * the first offending character, or undefined when the text is valid.
 */
export function jsonErrorOffset(text: string): {offset: number; reason: string} | undefined {
  let i = 0
  const fail = (reason: string): never => {
    throw new Located(i, reason)
  }
  const ws = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i]!)) i++
  }
  const value = (): void => {
    ws()
    const c = text[i]
    if (c === undefined) fail('unexpected end of input')
    if (c === '{') return object()
    if (c === '[') return array()
    if (c === '"') return string()
    if (c === '-' || (c! >= '0' && c! <= '9')) return number()
    for (const lit of ['true', 'false', 'null']) {
      if (text.startsWith(lit, i)) {
        i += lit.length
        return
      }
    }
    fail(`unexpected ${show(c)}`)
  }
  const object = () => {
    i++
    ws()
    if (text[i] === '}') {
      i++
      return
    }
    for (;;) {
      ws()
      if (text[i] !== '"')
        fail(
          text[i] === undefined
            ? 'unexpected end of input'
            : `expected a double-quoted property name, got ${show(text[i])}`,
        )
      string()
      ws()
      if (text[i] !== ':') fail(`expected ':' after property name, got ${show(text[i])}`)
      i++
      value()
      ws()
      if (text[i] === ',') {
        i++
        continue
      }
      if (text[i] === '}') {
        i++
        return
      }
      fail(`expected ',' or '}' after property value, got ${show(text[i])}`)
    }
  }
  const array = () => {
    i++
    ws()
    if (text[i] === ']') {
      i++
      return
    }
    for (;;) {
      value()
      ws()
      if (text[i] === ',') {
        i++
        continue
      }
      if (text[i] === ']') {
        i++
        return
      }
      fail(`expected ',' or ']' after array element, got ${show(text[i])}`)
    }
  }
  const string = () => {
    i++
    while (i < text.length) {
      const c = text[i]!
      if (c === '"') {
        i++
        return
      }
      if (c === '\\') {
        const e = text[i + 1]
        if (e === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) fail('bad \\u escape')
          i += 6
          continue
        }
        if (e === undefined || !'"\\/bfnrt'.includes(e)) fail('bad escape in string')
        i += 2
        continue
      }
      if (c < ' ') fail('control character in string (unescaped newline?)')
      i++
    }
    fail('unterminated string')
  }
  const number = () => {
    const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i))
    if (!m || m[0] === '-') fail('bad number')
    i += m![0].length
  }
  try {
    value()
    ws()
    if (i < text.length) fail(`unexpected ${show(text[i])} after the JSON value`)
    return undefined
  } catch (error) {
    if (error instanceof Located) return {offset: error.offset, reason: error.reason}
    throw error
  }
}

class Located extends Error {
  constructor(
    readonly offset: number,
    readonly reason: string,
  ) {
    super(reason)
  }
}

function show(c: string | undefined): string {
  return c === undefined ? 'end of input' : JSON.stringify(c)
}

/** 1-based line and column of an offset. */
export function lineColumn(text: string, offset: number): {line: number; column: number} {
  const before = text.slice(0, offset)
  const line = before.split('\n').length
  return {line, column: offset - before.lastIndexOf('\n')}
}
