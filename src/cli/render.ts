import chalk from 'chalk'
import Table from 'cli-table3'

import type {ListOutputFlags} from './flags.js'
import {streamOut, writeErr, writeOut} from './output.js'

type Row = Record<string, unknown>

/** Reads a dotted field path (`shippingAddress.city`, `quoteModel.0.fileName`). */
export function getPath(obj: unknown, path: string): unknown {
  let cur: unknown = obj
  for (const part of path.split('.')) {
    if (cur === null || cur === undefined || typeof cur !== 'object') return undefined
    cur = (cur as Record<string, unknown>)[part]
  }
  return cur
}

export function parseColumns(spec: string | undefined, defaults: readonly string[]): string[] {
  if (!spec) return [...defaults]
  const cols = spec
    .split(',')
    .map((c) => c.trim())
    .filter(Boolean)
  return cols.length > 0 ? cols : [...defaults]
}

/** Sorts by a field path; `-field` descends. Numbers compare as numbers, missing values last. */
export function sortRows<T>(rows: readonly T[], spec: string | undefined): T[] {
  if (!spec) return [...rows]
  const desc = spec.startsWith('-')
  const field = desc ? spec.slice(1) : spec
  const dir = desc ? -1 : 1
  return [...rows].sort((a, b) => {
    const x = getPath(a, field)
    const y = getPath(b, field)
    if (x === undefined || x === null) return y === undefined || y === null ? 0 : 1
    if (y === undefined || y === null) return -1
    if (typeof x === 'number' && typeof y === 'number') return (x - y) * dir
    return String(x).localeCompare(String(y), undefined, {numeric: true}) * dir
  })
}

/** One cell's text: scalars as they are, objects as compact JSON; absent values (and NaN) an empty cell. */
export function cellText(value: unknown): string {
  if (value === undefined || value === null) return ''
  if (typeof value === 'string') return value
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : ''
  if (typeof value === 'boolean') return String(value)
  if (typeof value === 'bigint') return value.toString()
  if (typeof value !== 'object') return ''
  return JSON.stringify(value) ?? ''
}

/** RFC 4180: quote fields holding a comma, quote, CR or LF; double embedded quotes. */
export function csvField(text: string): string {
  return /[",\r\n]/.test(text) || /^\s|\s$/.test(text) ? `"${text.replace(/"/g, '""')}"` : text
}

export function toCsv(rows: readonly Row[], columns: readonly string[], header = true): string {
  const lines: string[] = []
  if (header) lines.push(columns.map(csvField).join(','))
  for (const row of rows) lines.push(columns.map((c) => csvField(cellText(getPath(row, c)))).join(','))
  return lines.join('\r\n')
}

export function project(row: unknown, columns: readonly string[]): Row {
  const out: Row = {}
  for (const c of columns) out[c] = getPath(row, c) ?? null
  return out
}

export function toTable(rows: readonly Row[], columns: readonly string[], header = true): string {
  const table = new Table({
    head: header ? columns.map((c) => chalk.bold(c)) : [],
    chars: {
      top: '',
      'top-mid': '',
      'top-left': '',
      'top-right': '',
      bottom: '',
      'bottom-mid': '',
      'bottom-left': '',
      'bottom-right': '',
      left: '',
      'left-mid': '',
      mid: '',
      'mid-mid': '',
      right: '',
      'right-mid': '',
      middle: '  ',
    },
    style: {head: [], border: [], 'padding-left': 0, 'padding-right': 0},
  })
  for (const row of rows) table.push(columns.map((c) => cellText(getPath(row, c))))
  return table
    .toString()
    .split('\n')
    .map((l) => l.trimEnd())
    .join('\n')
}

/** Key/value table for one record: nested objects flattened to dotted paths. */
export function toKeyValue(record: Row, opts: {skip?: readonly string[]} = {}): string {
  const pairs: [string, string][] = []
  const walk = (value: unknown, prefix: string): void => {
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      for (const [k, v] of Object.entries(value)) walk(v, prefix ? `${prefix}.${k}` : k)
      return
    }
    if (Array.isArray(value) && value.some((v) => v !== null && typeof v === 'object')) {
      pairs.push([prefix, `${value.length} item${value.length === 1 ? '' : 's'}`])
      return
    }
    pairs.push([prefix, Array.isArray(value) ? value.map(cellText).join(', ') : cellText(value)])
  }
  for (const [k, v] of Object.entries(record)) if (!opts.skip?.includes(k)) walk(v, k)
  const width = Math.max(0, ...pairs.map(([k]) => k.length))
  return pairs.map(([k, v]) => `${chalk.bold(k.padEnd(width))}  ${v}`).join('\n')
}

/**
 * Prints rows as the list flags ask: table (default), CSV or NDJSON.
 * `--json` is handled by BaseCommand from the command's returned value.
 * An empty table prints `empty` (such as "No demands.") on stderr, so that an
 * empty answer is told apart from no answer; stdout stays empty.
 */
export function printList(
  rows: readonly Row[],
  flags: ListOutputFlags,
  defaultColumns: readonly string[],
  empty?: string,
): void {
  const columns = parseColumns(flags.columns, defaultColumns)
  const header = !flags['no-header']
  if (flags.ndjson) {
    const out = streamOut()
    for (const row of rows) out.line(JSON.stringify(flags.columns ? project(row, columns) : row))
    out.flush()
    return
  }
  if (rows.length === 0 && !flags.csv) {
    if (empty) writeErr(empty)
    return
  }
  writeOut(flags.csv ? toCsv(rows, columns, header) : toTable(rows, columns, header))
}

/**
 * The hint under one page of a list when the service says there are more pages
 * (`Page 1 of 3 (52 demands); --page 2 or --all for more.`); undefined when it
 * does not say, or says this is the last page.
 */
export function morePagesNote(
  paging: {page?: number | undefined; totalPages?: number | undefined; total?: number | undefined},
  noun: string,
): string | undefined {
  const {page, totalPages, total} = paging
  if (page === undefined || totalPages === undefined || totalPages <= page) return undefined
  return `Page ${page} of ${totalPages}${total === undefined ? '' : ` (${total} ${noun})`}; --page ${page + 1} or --all for more.`
}

/** NDJSON line for one item, for streaming output. */
export function ndjsonLine(row: unknown, flags: ListOutputFlags, defaultColumns: readonly string[]): string {
  return JSON.stringify(flags.columns ? project(row, parseColumns(flags.columns, defaultColumns)) : row)
}

/** An epoch-ms time as ISO 8601 in the local time zone, with its offset (2025-01-03T10:00:00+01:00). */
export function isoLocal(ms: number): string {
  const d = new Date(ms)
  if (Number.isNaN(d.getTime())) return String(ms)
  const pad = (n: number, w = 2) => String(Math.trunc(Math.abs(n))).padStart(w, '0')
  const offset = -d.getTimezoneOffset()
  const sign = offset >= 0 ? '+' : '-'
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}${sign}${pad(offset / 60)}:${pad(offset % 60)}`
}
