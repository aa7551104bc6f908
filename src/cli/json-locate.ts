import {MAX_JSON_DEPTH} from '../schemas/depth.js'

/**
 * Finds where a JSON text first goes wrong. V8 does not always say (an
 * "Unexpected token" message carries no position), so this small validating
 * scanner walks the text the way JSON.parse would and returns the offset of
 * the first offending character, or undefined when the text is valid. It keeps
 * its own stack of open containers, so any nesting depth is fine.
 */
export function jsonErrorOffset(text: string): {offset: number; reason: string} | undefined {
  let i = 0
  const at = (reason: string) => ({offset: i, reason})
  const ws = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i]!)) i++
  }
  /** A string from its opening quote: a problem, or undefined when it is well formed. */
  const string = (): {offset: number; reason: string} | undefined => {
    i++
    while (i < text.length) {
      const c = text[i]!
      if (c === '"') {
        i++
        return undefined
      }
      if (c === '\\') {
        const e = text[i + 1]
        if (e === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) return at('bad \\u escape')
          i += 6
          continue
        }
        if (e === undefined || !'"\\/bfnrt'.includes(e)) return at('bad escape in string')
        i += 2
        continue
      }
      if (c < ' ') return at('control character in string (unescaped newline?)')
      i++
    }
    return at('unterminated string')
  }
  /** The open objects and arrays, innermost last. */
  const open: ('{' | '[')[] = []
  // What may come next: any value, a value or ']' (just after '['), a property name,
  // a name or '}' (just after '{'), or what follows a complete value.
  let next: 'value' | 'value-or-]' | 'key' | 'key-or-}' | 'after' = 'value'
  for (;;) {
    ws()
    const c = text[i]
    if (next === 'after') {
      const top = open[open.length - 1]
      if (top === undefined) return i < text.length ? at(`unexpected ${show(c)} after the JSON value`) : undefined
      if (c === ',') {
        i++
        next = top === '[' ? 'value' : 'key'
      } else if (c === (top === '[' ? ']' : '}')) {
        i++
        open.pop()
      } else {
        return at(
          top === '['
            ? `expected ',' or ']' after array element, got ${show(c)}`
            : `expected ',' or '}' after property value, got ${show(c)}`,
        )
      }
      continue
    }
    if (next === 'key' || next === 'key-or-}') {
      if (next === 'key-or-}' && c === '}') {
        i++
        open.pop()
        next = 'after'
        continue
      }
      if (c !== '"')
        return at(
          c === undefined ? 'unexpected end of input' : `expected a double-quoted property name, got ${show(c)}`,
        )
      const bad = string()
      if (bad) return bad
      ws()
      if (text[i] !== ':') return at(`expected ':' after property name, got ${show(text[i])}`)
      i++
      next = 'value'
      continue
    }
    if (next === 'value-or-]' && c === ']') {
      i++
      open.pop()
      next = 'after'
      continue
    }
    if (c === undefined) return at('unexpected end of input')
    next = 'after'
    if (c === '{' || c === '[') {
      i++
      open.push(c)
      next = c === '{' ? 'key-or-}' : 'value-or-]'
    } else if (c === '"') {
      const bad = string()
      if (bad) return bad
    } else if (c === '-' || (c >= '0' && c <= '9')) {
      NUMBER.lastIndex = i
      const m = NUMBER.exec(text)
      if (!m || m[0] === '-') return at('bad number')
      i += m[0].length
    } else {
      const literal = ['true', 'false', 'null'].find((l) => text.startsWith(l, i))
      if (literal === undefined) return at(`unexpected ${show(c)}`)
      i += literal.length
    }
  }
}

const NUMBER = /-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/y

function show(c: string | undefined): string {
  return c === undefined ? 'end of input' : JSON.stringify(c)
}

/** 1-based line and column of an offset. */
export function lineColumn(text: string, offset: number): {line: number; column: number} {
  const before = text.slice(0, offset)
  const line = before.split('\n').length
  return {line, column: offset - before.lastIndexOf('\n')}
}

export {MAX_JSON_DEPTH, nestedDeeperThan} from '../schemas/depth.js'

/** What a too-deep row is told. */
export const TOO_DEEP = `nests objects and arrays more than ${MAX_JSON_DEPTH} levels deep`
