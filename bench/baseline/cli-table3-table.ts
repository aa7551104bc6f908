// The table renderer before issue 19, kept as the benchmark's "before": one
// cli-table3 table over every row (src/cli/render.ts toTable until then), and
// the same library given fixed column widths in bounded blocks of rows, the
// first way tried to make it linear.
import chalk from 'chalk'
import Table from 'cli-table3'

import {cellText, getPath} from '../../src/cli/render.js'

type Row = Record<string, unknown>

const chars = {
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
}
const style = {head: [], border: [], 'padding-left': 0, 'padding-right': 0}

/** The old toTable: one table, every row pushed, then toString. */
export function oneTable(rows: readonly Row[], columns: readonly string[]): string {
  const table = new Table({head: columns.map((c) => chalk.bold(c)), chars, style})
  for (const row of rows) table.push(columns.map((c) => cellText(getPath(row, c))))
  return table
    .toString()
    .split('\n')
    .map((l) => l.trimEnd())
    .join('\n')
}

/** cli-table3 in blocks of `block` rows, every block given the widths computed first in one pass. */
export function blockTables(rows: readonly Row[], columns: readonly string[], block = 500): string {
  const cells = rows.map((row) => columns.map((c) => cellText(getPath(row, c))))
  const colWidths = columns.map((c, i) => cells.reduce((w, r) => Math.max(w, (r[i] ?? '').length), c.length))
  const parts: string[] = []
  for (let i = 0; i < cells.length; i += block) {
    const table = new Table({chars, style, colWidths, ...(i === 0 ? {head: columns.map((c) => chalk.bold(c))} : {})})
    for (const r of cells.slice(i, i + block)) table.push(r)
    parts.push(table.toString())
  }
  return parts.join('\n')
}
