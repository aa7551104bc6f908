import type {PartFigures, QuoteOutcome, QuotedPart} from '../services/quote/types.js'
import {isTty, writeErr} from './output.js'

/** A quote as a person reads it: one block per demand, one line per part. */

const money = (n: number | undefined | null) => (n === undefined || n === null ? '-' : n.toFixed(2))
const signed = (n: number | undefined | null) =>
  n === undefined || n === null ? 'new' : `${n >= 0 ? '+' : ''}${n.toFixed(2)}`

function measured(f: PartFigures | undefined): string {
  if (!f) return ''
  if (f.kind === 'solid') return `${f.size.join(' × ')} mm, ${f.volume} mm³, ${f.area} mm²`
  const t = f.thickness === null ? '' : ` × ${f.thickness}`
  return `${f.size.join(' × ')}${t} mm sheet, ${f.area} mm², cut ${f.cutLength} mm, ${f.pierces} pierces, ${f.bends} bends`
}

function partLine(p: QuotedPart, currency: string | null): string {
  const head = `  ${p.fileName}  ${p.format ?? '?'}${p.cached ? ' (cached)' : ''}`
  if (p.error !== undefined) return `${head}\n      not quoted: ${p.error}`
  const was =
    p.currentUnitPrice === undefined ? '' : ` (now ${money(p.currentUnitPrice)} each; total ${signed(p.difference)})`
  return [
    head,
    `      ${measured(p.measured)}${p.slicedBy ? `  (print time from ${p.slicedBy})` : ''}`,
    `      ${[p.technology, p.material].filter(Boolean).join(' ')}  × ${p.quantity}  unit ${money(p.unitPrice)}  total ${money(p.total)} ${currency ?? ''}${was}`,
  ].join('\n')
}

const VERB: Record<QuoteOutcome['status'], string> = {
  quoted: 'quoted',
  'would-quote': 'would quote',
  unchanged: 'unchanged',
  skipped: 'skipped',
  failed: 'failed',
}

/** The block for one demand. */
export function quoteText(o: QuoteOutcome): string {
  const order = o.orderNumber === undefined ? '' : `  order ${o.orderNumber}`
  const stage = o.sent ? 'sent (quote_sent)' : (o.stage ?? '')
  const why = o.reason ? `: ${o.reason}` : ''
  const earlier = o.resumed ? ' (by the interrupted run)' : ''
  const lines = [`${o.demandId}${order}  ${stage}  ${VERB[o.status]}${earlier}${why}`]
  for (const p of o.parts) lines.push(partLine(p, o.currency))
  if (o.partsTotal !== null) {
    const now = o.currentPartsTotal === null ? '' : ` (now ${money(o.currentPartsTotal)}, ${signed(o.difference)})`
    lines.push(`  parts total ${money(o.partsTotal)} ${o.currency ?? ''}${now}`)
  }
  return lines.join('\n')
}

/** Counts of a run, by outcome. */
export type QuoteCounts = Record<QuoteOutcome['status'], number>

export function summaryLine(c: QuoteCounts, apply: boolean, sent: number, earlier = 0): string {
  const parts = [
    apply ? `${c.quoted} quoted` : `${c['would-quote']} would be quoted`,
    `${c.unchanged} unchanged`,
    `${c.skipped} skipped`,
    ...(c.failed > 0 ? [`${c.failed} failed`] : []),
    ...(sent > 0 ? [`${sent} sent`] : []),
  ]
  const resumed = earlier > 0 ? ` (${earlier} of them done by the interrupted run, not quoted again)` : ''
  return `${parts.join(', ')}${resumed}.${apply ? '' : ' Dry run: nothing was written; pass --apply to write these prices.'}`
}

/** One line of progress on a terminal's stderr: demand n of total and the part being read. */
export class QuoteProgress {
  private drawn = false
  private readonly enabled = isTty(process.stderr)

  show(text: string): void {
    if (!this.enabled) return
    const columns = process.stderr.columns > 20 ? process.stderr.columns : 80
    process.stderr.write(`\r${text.slice(0, columns - 1)}\u001B[K`)
    this.drawn = true
  }

  clear(): void {
    if (this.drawn) process.stderr.write('\r\u001B[K')
    this.drawn = false
  }

  /** Writes a message on stderr without breaking the progress line. */
  note(text: string): void {
    this.clear()
    writeErr(text)
  }
}
