import type * as z from 'zod'

import type {FieldProblem} from '../services/demands/batch-validate.js'
import {MAX_JSON_DEPTH, nestedDeeperThan} from './json-locate.js'

/** One CSV record: its cells and the line it starts on. */
export interface CsvRecord {
  cells: string[]
  line: number
}

/**
 * Streaming RFC 4180 reader: fields separated by commas, records by CRLF or LF;
 * a quoted field may hold commas, doubled quotes and line breaks. Feed text in
 * any pieces; complete records come out as they end.
 */
export class CsvTokenizer {
  private field = ''
  private cells: string[] = []
  private quoted = false
  /** Inside quotes, a quote was just seen: either the closing one or the first of a doubled pair. */
  private quoteSeen = false
  private fieldStarted = false
  private line = 1
  private recordLine = 1
  private lastWasCr = false

  /** Records completed by this piece of text. */
  push(text: string): CsvRecord[] {
    const out: CsvRecord[] = []
    let i = 0
    const n = text.length
    while (i < n) {
      const ch = text.charCodeAt(i)
      if (this.quoted) {
        if (this.quoteSeen) {
          this.quoteSeen = false
          if (ch === 34) {
            this.field += '"'
            i++
            continue
          }
          this.quoted = false
          // fall through: the character after a closing quote is read unquoted
        } else {
          // Copy the run of plain characters in one slice.
          const q = text.indexOf('"', i)
          const end = q === -1 ? n : q
          const chunk = text.slice(i, end)
          this.countLines(chunk)
          this.field += chunk
          i = end
          if (q !== -1) {
            this.quoteSeen = true
            i++
          }
          continue
        }
      }
      if (ch === 44) {
        this.endField()
        i++
      } else if (ch === 10) {
        // The LF of a CRLF: the CR already ended the record and counted the line.
        if (!this.lastWasCr) {
          this.endRecord(out)
          this.line++
        }
        this.lastWasCr = false
        i++
        continue
      } else if (ch === 13) {
        this.endRecord(out)
        this.lastWasCr = true
        this.line++
        i++
        continue
      } else if (ch === 34 && !this.fieldStarted) {
        this.quoted = true
        this.fieldStarted = true
        i++
      } else {
        // A run of plain characters up to the next comma, quote or line break.
        let j = i
        while (j < n) {
          const c = text.charCodeAt(j)
          if (c === 44 || c === 10 || c === 13) break
          j++
        }
        this.field += text.slice(i, j)
        this.fieldStarted = true
        i = j
      }
      this.lastWasCr = false
    }
    return out
  }

  /** The last record when the text does not end with a line break. */
  end(): CsvRecord[] {
    const out: CsvRecord[] = []
    if (this.quoted && !this.quoteSeen) {
      throw new Error(`a quoted field that starts in the record on line ${this.recordLine} is never closed`)
    }
    if (this.fieldStarted || this.cells.length > 0) this.endRecord(out)
    return out
  }

  private countLines(chunk: string): void {
    for (let k = chunk.indexOf('\n'); k !== -1; k = chunk.indexOf('\n', k + 1)) this.line++
  }

  private endField(): void {
    this.cells.push(this.field)
    this.field = ''
    this.fieldStarted = false
    this.quoted = false
    this.quoteSeen = false
  }

  private endRecord(out: CsvRecord[]): void {
    if (this.fieldStarted || this.cells.length > 0) {
      this.endField()
      out.push({cells: this.cells, line: this.recordLine})
    }
    this.cells = []
    this.recordLine = this.line + 1
  }
}

type Leaf = 'number' | 'integer' | 'boolean' | 'string' | 'json'

interface ZodLike {
  def: {
    type: string
    innerType?: ZodLike
    element?: ZodLike
    options?: ZodLike[]
    in?: ZodLike
    checks?: {_zod: {def: {check?: string; format?: string}}}[]
  }
  shape?: Record<string, ZodLike>
}

/** The schema node at a field path (`quoteModel.0.fileName`), or undefined when the schema does not know it. */
function nodeAt(schema: ZodLike, parts: string[]): ZodLike | undefined {
  let node: ZodLike | undefined = schema
  for (const part of parts) {
    node = node && unwrap(node)
    if (!node) return undefined
    if (node.def.type === 'object' && node.shape) node = node.shape[part]
    else if (node.def.type === 'array' && /^\d+$/.test(part)) node = node.def.element
    else return undefined
  }
  return node
}

function unwrap(node: ZodLike): ZodLike {
  let n = node
  for (;;) {
    const t = n.def.type
    if ((t === 'optional' || t === 'nullable' || t === 'default' || t === 'readonly') && n.def.innerType)
      n = n.def.innerType
    else if (t === 'pipe' && n.def.in) n = n.def.in
    else return n
  }
}

function leafOf(node: ZodLike | undefined): Leaf {
  if (!node) return 'string'
  const n = unwrap(node)
  switch (n.def.type) {
    case 'number':
      return n.def.checks?.some((c) => c._zod.def.format === 'safeint' || c._zod.def.format === 'int32')
        ? 'integer'
        : 'number'
    case 'boolean':
      return 'boolean'
    case 'object':
    case 'array':
    case 'record':
    case 'unknown':
    case 'any':
      return 'json'
    case 'union': {
      // A cell that may be a string stays one; a number-or-null union reads as a number.
      const kinds = (n.def.options ?? []).map((o) => leafOf(o))
      if (kinds.includes('string')) return 'string'
      if (kinds.includes('integer')) return 'integer'
      if (kinds.includes('number')) return 'number'
      return 'string'
    }
    default:
      return 'string'
  }
}

const TRUE = new Set(['true', 'yes', '1', 'y'])
const FALSE = new Set(['false', 'no', '0', 'n'])

/**
 * Turns CSV records into objects: the header's cells are field paths, each cell
 * converted to the type the schema expects at its path (numbers, integers,
 * booleans; objects and arrays as JSON), empty cells left out.
 */
export class CsvRowBuilder {
  private readonly paths: {parts: string[]; leaf: Leaf}[]

  constructor(
    readonly header: string[],
    schema: z.ZodType,
  ) {
    const root = schema as unknown as ZodLike
    const seen = new Set<string>()
    this.paths = header.map((raw, i) => {
      const path = raw.trim()
      if (path === '') throw new Error(`column ${i + 1} of the header is empty; every column needs a field path`)
      if (seen.has(path)) throw new Error(`the header names ${JSON.stringify(path)} twice`)
      seen.add(path)
      const parts = path.split('.')
      if (parts.some((p) => p === '' || p === '__proto__' || p === 'constructor' || p === 'prototype')) {
        throw new Error(`the header's field path ${JSON.stringify(path)} is not valid`)
      }
      return {parts, leaf: leafOf(nodeAt(root, parts))}
    })
  }

  build(cells: string[]): {value: Record<string, unknown>; problems: FieldProblem[]} {
    const value: Record<string, unknown> = {}
    const problems: FieldProblem[] = []
    if (cells.length !== this.paths.length) {
      problems.push({path: '', reason: `has ${cells.length} cells; the header has ${this.paths.length}`})
    }
    this.paths.forEach(({parts, leaf}, i) => {
      const cell = cells[i]
      if (cell === undefined || cell === '') return
      const converted = convert(cell, leaf)
      if ('error' in converted) {
        problems.push({path: parts.join('.'), reason: converted.error})
        return
      }
      setPath(value, parts, converted.value)
    })
    return {value: compact(value) as Record<string, unknown>, problems}
  }
}

function convert(cell: string, leaf: Leaf): {value: unknown} | {error: string} {
  const text = cell.trim()
  switch (leaf) {
    case 'number':
    case 'integer': {
      const n = Number(text)
      if (text === '' || !Number.isFinite(n)) return {error: `expected a number, got ${JSON.stringify(cell)}`}
      if (leaf === 'integer' && !Number.isInteger(n))
        return {error: `expected a whole number, got ${JSON.stringify(cell)}`}
      return {value: n}
    }
    case 'boolean': {
      const t = text.toLowerCase()
      if (TRUE.has(t)) return {value: true}
      if (FALSE.has(t)) return {value: false}
      return {error: `expected true or false, got ${JSON.stringify(cell)}`}
    }
    case 'json':
      if (/^[[{]/.test(text)) {
        try {
          const value = JSON.parse(text) as unknown
          return nestedDeeperThan(value)
            ? {error: `expected JSON nested at most ${MAX_JSON_DEPTH} levels deep`}
            : {value}
        } catch {
          return {error: `expected JSON, got ${JSON.stringify(cell.length > 40 ? `${cell.slice(0, 40)}…` : cell)}`}
        }
      }
      return {value: cell}
    default:
      return {value: cell}
  }
}

function setPath(target: Record<string, unknown>, parts: string[], value: unknown): void {
  let cur: Record<string, unknown> | unknown[] = target
  parts.forEach((part, i) => {
    const last = i === parts.length - 1
    const key: string | number = Array.isArray(cur) ? Number(part) : part
    if (last) {
      ;(cur as Record<string | number, unknown>)[key] = value
      return
    }
    const nextIsIndex = /^\d+$/.test(parts[i + 1]!)
    let next = (cur as Record<string | number, unknown>)[key]
    if (next === null || typeof next !== 'object') {
      next = nextIsIndex ? [] : {}
      ;(cur as Record<string | number, unknown>)[key] = next
    }
    cur = next as Record<string, unknown> | unknown[]
  })
}

/** Drops the holes that empty cells leave in arrays (`quoteModel.1.x` without `quoteModel.0`). */
function compact(value: unknown): unknown {
  if (Array.isArray(value)) return value.filter((v) => v !== undefined).map(compact)
  if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) (value as Record<string, unknown>)[k] = compact(v)
  }
  return value
}
