import {createHash} from 'node:crypto'
import {readFile} from 'node:fs/promises'
import {homedir} from 'node:os'
import {join} from 'node:path'

import {InputError} from '../services/errors.js'
import {jsonErrorOffset, lineColumn, nestedDeeperThan, TOO_DEEP} from './json-locate.js'
import {decodeText} from './text-decode.js'
import {fileReason} from '../util/file-reason.js'

/** `~` and `~/…` as a shell reads them: the user's home folder. */
export function expandHome(path: string): string {
  return path === '~' || path.startsWith('~/') ? join(homedir(), path.slice(1)) : path
}

export interface InputDocument {
  /** The rows: a JSON array's items, one single object, or NDJSON lines. */
  rows: unknown[]
  format: 'array' | 'object' | 'ndjson'
  /** For messages: the path, or "stdin". */
  source: string
  /** sha256 of the raw content: the identity of this input. */
  contentHash: string
  /** 1-based line of each row (NDJSON), for messages. */
  lines?: number[]
}

/** Reads all of stdin (for `--file -`). */
export async function readStdin(stream: NodeJS.ReadableStream = process.stdin): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer))
  return decodeText(Buffer.concat(chunks), 'stdin')
}

/**
 * Reads `--file PATH` or `--file -` (stdin) as text; `flag` is the flag the path came from
 * (`--ids-file`, `--input`), named in every message.
 */
export async function readTextInput(file: string, flag = '--file'): Promise<{text: string; source: string}> {
  if (file === '-') {
    if ((process.stdin as {isTTY?: boolean}).isTTY) {
      throw new InputError(`${flag} - reads from stdin, but stdin is a terminal; pipe the data in instead.`)
    }
    return {text: await readStdin(), source: 'stdin'}
  }
  let bytes: Buffer
  try {
    bytes = await readFile(file)
  } catch (error) {
    throw new InputError(`cannot read ${flag} ${file}: ${fileReason(error)}`)
  }
  return {text: decodeText(bytes, file), source: file}
}

/**
 * Parses a JSON array, a single JSON object, or NDJSON (one object per line).
 * Bad JSON is reported with line and column; a bad NDJSON line by its number.
 */
export function parseRows(text: string, source: string): InputDocument {
  const contentHash = createHash('sha256').update(text).digest('hex')
  const body = text.replace(/^\uFEFF/, '')
  const trimmed = body.trim()
  if (trimmed === '') throw new InputError(`${source} is empty; expected a JSON array, a JSON object, or NDJSON.`)
  if (looksLikeNdjson(body, source)) return parseNdjson(body, source, contentHash)
  let value: unknown
  try {
    value = JSON.parse(body)
  } catch (error) {
    throw new InputError(`${source}: invalid JSON at ${locate(body, error as Error)}`)
  }
  if (Array.isArray(value)) {
    const deep = value.findIndex((row) => nestedDeeperThan(row))
    if (deep !== -1) throw new InputError(`${source}: row ${deep + 1} ${TOO_DEEP}.`)
    return {rows: value, format: 'array', source, contentHash}
  }
  if (value !== null && typeof value === 'object') {
    if (nestedDeeperThan(value)) throw new InputError(`${source}: the object ${TOO_DEEP}.`)
    return {rows: [value], format: 'object', source, contentHash}
  }
  throw new InputError(`${source}: expected a JSON array or object, got ${value === null ? 'null' : typeof value}.`)
}

/** Parses one JSON object (an update body). */
export function parseObject(text: string, source: string): Record<string, unknown> {
  const body = text.replace(/^\uFEFF/, '')
  if (body.trim() === '') throw new InputError(`${source} is empty; expected a JSON object.`)
  let value: unknown
  try {
    value = JSON.parse(body)
  } catch (error) {
    throw new InputError(`${source}: invalid JSON at ${locate(body, error as Error)}`)
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new InputError(
      `${source}: expected one JSON object, got ${Array.isArray(value) ? 'an array' : value === null ? 'null' : typeof value}.`,
    )
  }
  if (nestedDeeperThan(value)) throw new InputError(`${source}: the object ${TOO_DEEP}.`)
  return value as Record<string, unknown>
}

/** NDJSON when the name says so, or when the first non-empty line is a whole JSON object and more lines follow. */
function looksLikeNdjson(text: string, source: string): boolean {
  if (/\.(ndjson|jsonl)$/i.test(source)) return true
  const lines = text.split(/\r?\n/).filter((l) => l.trim() !== '')
  if (lines.length < 2) return false
  const first = lines[0]!.trim()
  if (!first.startsWith('{')) return false
  try {
    JSON.parse(first)
    return true
  } catch {
    return false
  }
}

function parseNdjson(text: string, source: string, contentHash: string): InputDocument {
  const rows: unknown[] = []
  const lines: number[] = []
  text.split(/\r?\n/).forEach((line, i) => {
    if (line.trim() === '') return
    let value: unknown
    try {
      value = JSON.parse(line)
    } catch (error) {
      const col = locate(line, error as Error).replace(/^line 1, /, '')
      throw new InputError(`${source}: invalid JSON on line ${i + 1} (${col})`)
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      throw new InputError(`${source}: line ${i + 1} is not a JSON object.`)
    }
    if (nestedDeeperThan(value)) throw new InputError(`${source}: line ${i + 1} ${TOO_DEEP}.`)
    rows.push(value)
    lines.push(i + 1)
  })
  return {rows, format: 'ndjson', source, contentHash, lines}
}

/** Line, column and reason of a JSON.parse failure. */
export function locate(text: string, error: Error): string {
  const found = jsonErrorOffset(text)
  if (!found) return error.message
  const {line, column} = lineColumn(text, found.offset)
  return `line ${line}, column ${column}: ${found.reason}`
}
