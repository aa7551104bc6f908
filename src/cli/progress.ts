import {performance} from 'node:perf_hooks'

/**
 * A one-line progress bar on stderr: rows done of total, rate and ETA. Drawn
 * only when stderr is a terminal (never in pipes, CI logs or tests), at most ten
 * times a second, and erased when done so the summary starts on a clean line.
 */
export class ProgressBar {
  private readonly enabled: boolean
  private readonly started = performance.now()
  private last = 0
  private drawn = false
  /** The bar as last drawn, to draw again after lines written above it. */
  private text = ''
  /** Rows already done when counting started (from a journal), left out of the rate. */
  private baseline: number | undefined

  constructor(
    private readonly stream: NodeJS.WriteStream = process.stderr,
    enabled?: boolean,
  ) {
    this.enabled = enabled ?? Boolean((stream as {isTTY?: boolean}).isTTY)
  }

  update(p: {done: number; failed: number; total: number}, force = false): void {
    if (!this.enabled || p.total === 0) return
    const now = performance.now()
    if (!force && now - this.last < 100 && p.done < p.total) return
    this.last = now
    this.baseline ??= p.done
    const seconds = (now - this.started) / 1000
    const fresh = p.done - this.baseline
    const rate = seconds > 0.2 ? fresh / seconds : 0
    const left = p.total - p.done
    const eta = rate > 0 ? formatSeconds(left / rate) : '--'
    const width = Math.max(10, Math.min(30, (this.stream.columns ?? 80) - 60))
    const filled = Math.round((p.done / p.total) * width)
    const bar = `${'#'.repeat(filled)}${'-'.repeat(width - filled)}`
    const failed = p.failed > 0 ? `  ${p.failed} failed` : ''
    // Never wider than the terminal: a line that wraps is left behind at every redraw.
    this.text = fitted(
      `[${bar}] ${p.done}/${p.total} rows  ${rate > 0 ? Math.round(rate) : '-'} rows/s  ETA ${eta}${failed}`,
      this.stream,
    )
    this.stream.write(`\r${this.text}\u001B[K`)
    this.drawn = true
  }

  /**
   * Writes lines to stdout without tearing the bar: on a terminal stdout and
   * stderr are the same screen, and a line written after the bar would start
   * in the middle of it. So the bar is erased, `write` runs (whole lines), and
   * the bar is drawn again below them.
   */
  around(write: () => void, out: NodeJS.WriteStream = process.stdout): void {
    if (!this.drawn || !(out as {isTTY?: boolean}).isTTY) {
      write()
      return
    }
    this.stream.write('\r\u001B[K')
    this.drawn = false
    write()
    this.stream.write(`${this.text}\u001B[K`)
    this.drawn = true
  }

  /** Erases the bar. */
  done(): void {
    if (this.drawn) this.stream.write('\r\u001B[K')
    this.drawn = false
  }
}

/** A bar's line cut to the terminal's width, less the last column (where a terminal would wrap). */
function fitted(text: string, stream: NodeJS.WriteStream): string {
  // A terminal that gives no width (0, as a pseudo-terminal may) is taken as 80 columns.
  const room = Math.max(1, (stream.columns || 80) - 1)
  return text.length > room ? text.slice(0, room) : text
}

function formatSeconds(s: number): string {
  if (!Number.isFinite(s)) return '--'
  const total = Math.round(s)
  const m = Math.floor(total / 60)
  const sec = total % 60
  return m > 0 ? `${m}m${String(sec).padStart(2, '0')}s` : `${sec}s`
}

/**
 * A one-line byte progress bar on stderr (uploads, downloads): label, bytes
 * done of total and percentage. Terminal only, at most ten times a second.
 */
export class ByteProgressBar {
  private readonly enabled: boolean
  private last = 0
  private drawn = false

  constructor(
    private readonly stream: NodeJS.WriteStream = process.stderr,
    enabled?: boolean,
  ) {
    this.enabled = enabled ?? Boolean((stream as {isTTY?: boolean}).isTTY)
  }

  update(label: string, done: number, total?: number): void {
    if (!this.enabled) return
    const now = performance.now()
    if (now - this.last < 100 && (total === undefined || done < total)) return
    this.last = now
    const width = Math.max(10, Math.min(30, (this.stream.columns ?? 80) - 50))
    const ratio = total ? Math.min(1, done / total) : 0
    const bar = total ? `[${'#'.repeat(Math.round(ratio * width)).padEnd(width, '-')}] ` : ''
    const size = total ? `${formatBytes(done)}/${formatBytes(total)} ${Math.floor(ratio * 100)}%` : formatBytes(done)
    this.stream.write(`\r${fitted(`${bar}${size}  ${label.slice(0, 40)}`, this.stream)}\u001B[K`)
    this.drawn = true
  }

  /** Erases the bar. */
  done(): void {
    if (this.drawn) this.stream.write('\r\u001B[K')
    this.drawn = false
  }
}

function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`
  return `${(n / 1024 / 1024).toFixed(1)} MiB`
}
