import {MeshError} from './errors.js'
import {overLimit} from './limits.js'

// The readers that run third-party code on a buyer's file (OpenCascade for STEP and IGES,
// dxf-parser for DXF) run it in a child process of their own: a hostile file can make
// that code loop or grow without end, and neither a WebAssembly call nor a synchronous
// parse can be interrupted from its own thread. One ReaderChild per reader: the process is
// started on the first file, kept for the next ones while it stays small (unref'd while
// idle, so it never keeps the command alive; it leaves when its parent does), and killed
// when a file takes longer than the time limit or more memory than the memory limit; the
// next file starts a fresh one. The memory is watched from here, on Linux by the child's peak resident size
// (/proc/<pid>/status, VmHWM) every POLL_MS; elsewhere the time limit bounds it, and a
// reader may add a V8 heap cap of its own (nodeFlags).

/** How often the child's memory is looked at while it reads a file. */
const POLL_MS = 20

export interface ReaderChildSpec {
  /** Who reads, as messages name it: "OpenCascade", "dxf-parser". */
  reader: string
  /** The package the child loads, resolved from here at run time; its path is the child's argv[1]. */
  module: string
  /**
   * CommonJS source of an expression: a function that takes the loaded module and returns
   * the handler, `(request) => answer` (may return a promise); the answer must be
   * structured-cloneable. Written in our words, run with `node -e`.
   */
  handler: string
  /** Node options for the child, given the memory limit in MiB (e.g. a V8 heap cap). */
  nodeFlags: (maxMb: number) => string[]
  /**
   * The process is kept for the next file while its peak resident memory stays under this
   * many MiB; past it, it is ended once it has answered, so that what a big file took is
   * given back before the file is measured here (and the next file starts a fresh one).
   */
  keepUnderMb: number
}

/** The limits one file is read under. */
export interface ChildLimits {
  maxSeconds: number
  /** Most resident memory of the reader's process, MiB. */
  maxReaderMb: number
}

type Child = import('node:child_process').ChildProcess

interface Answer {
  id: number
  answer?: unknown
  error?: string
}

interface Job {
  child: Child
  resolve: (a: Answer) => void
  reject: (e: Error) => void
}

/** The child's script: the handler, its messages, and leaving with its parent. */
function childSource(handler: string): string {
  return `
process.on('disconnect', () => process.exit(0))
const handle = (${handler})(require(process.argv[1]))
process.on('message', async ({id, request}) => {
  try {
    process.send({id, answer: await handle(request)})
  } catch (e) {
    process.send({id, error: String((e && e.message) || e)})
  }
})
`
}

/** The peak resident size of a process in MiB, from Linux's /proc; undefined elsewhere or when it has gone. */
async function peakMb(pid: number): Promise<number | undefined> {
  if (process.platform !== 'linux') return undefined
  try {
    const {readFile} = await import('node:fs/promises')
    const status = await readFile(`/proc/${pid}/status`, 'latin1')
    const kb = /^VmHWM:\s*(\d+)\s*kB/m.exec(status)?.[1]
    return kb === undefined ? undefined : Number(kb) / 1024
  } catch {
    return undefined
  }
}

/** While the child has no file to read, it does not keep the command alive. */
function idle(child: Child, yes: boolean): void {
  const channel = child.channel as {ref(): void; unref(): void} | null | undefined
  if (yes) {
    child.unref()
    channel?.unref()
  } else {
    child.ref()
    channel?.ref()
  }
}

export class ReaderChild {
  private current: Child | undefined
  /** The memory limit the current child was started with (its node flags depend on it). */
  private startedMb = 0
  private readonly jobs = new Map<number, Job>()
  private nextId = 1
  /** What the file being read is called in messages ("DXF file"). */
  private label = 'the file'

  constructor(private readonly spec: ReaderChildSpec) {}

  /** Ends the child process (a test or a long-running caller may; the next file starts a new one). */
  async stop(): Promise<void> {
    const child = this.current
    this.current = undefined
    if (!child || child.exitCode !== null || child.signalCode !== null) return
    const gone = new Promise((done) => child.once('exit', done))
    child.kill()
    await gone
  }

  /** The process id of the running child, if any (for measurements). */
  get pid(): number | undefined {
    return this.current?.pid
  }

  private async start(maxMb: number): Promise<Child> {
    if (this.current && this.startedMb === maxMb) return this.current
    if (this.current) await this.stop()
    const [{spawn}, {createRequire}] = await Promise.all([import('node:child_process'), import('node:module')])
    const modulePath = createRequire(import.meta.url).resolve(this.spec.module)
    const child = spawn(
      process.execPath,
      [...this.spec.nodeFlags(maxMb), '-e', childSource(this.spec.handler), modulePath],
      {stdio: ['ignore', 'ignore', 'ignore', 'ipc'], serialization: 'advanced'},
    )
    const fail = (why: string) => {
      if (this.current === child) this.current = undefined
      // Only this child's job: a child killed over a limit may exit after the next one has started.
      for (const [id, job] of this.jobs)
        if (job.child === child) {
          this.jobs.delete(id)
          job.reject(new MeshError(why))
        }
    }
    child.on('message', (a: Answer) => {
      const job = this.jobs.get(a.id)
      this.jobs.delete(a.id)
      if (this.jobs.size === 0) idle(child, true)
      job?.resolve(a)
    })
    child.on('error', (e) => fail(`${this.spec.reader} stopped: ${e.message}`))
    child.on('exit', (code, signal) => {
      // V8 ends a process that reaches its heap cap with abort().
      if (signal === 'SIGABRT' || code === 134)
        fail(
          overLimit(
            `${this.label} takes ${this.spec.reader} more than ${maxMb} MiB of memory to read`,
            '--max-reader-mb',
          ).message,
        )
      else fail(`${this.spec.reader} stopped before it finished the file`)
    })
    idle(child, true)
    this.current = child
    this.startedMb = maxMb
    return child
  }

  /**
   * Hands one request to the child and waits for its answer, within the limits; `label`
   * starts the messages ("STEP file", "DXF file"). A child error comes back as `{error}`.
   */
  async run(request: unknown, limits: ChildLimits, label: string): Promise<{answer?: unknown; error?: string}> {
    // One file at a time per reader: a second caller waits for the first (the limits are per file).
    while (this.busy) await this.busy
    let done!: () => void
    this.busy = new Promise<void>((resolve) => (done = resolve))
    try {
      return await this.runOne(request, limits, label)
    } finally {
      this.busy = undefined
      done()
    }
  }

  private busy: Promise<void> | undefined

  private async runOne(request: unknown, limits: ChildLimits, label: string): Promise<Answer> {
    const child = await this.start(limits.maxReaderMb)
    const id = this.nextId++
    this.label = label
    idle(child, false)
    let timer: NodeJS.Timeout | undefined
    let poll: NodeJS.Timeout | undefined
    try {
      return await new Promise<Answer>((resolve, reject) => {
        this.jobs.set(id, {child, resolve, reject})
        const over = (error: MeshError) => {
          if (!this.jobs.delete(id)) return
          reject(error)
          if (this.current === child) this.current = undefined
          child.kill('SIGKILL')
        }
        timer = setTimeout(
          () =>
            over(
              overLimit(`${label} takes ${this.spec.reader} more than ${limits.maxSeconds} s to read`, '--max-seconds'),
            ),
          limits.maxSeconds * 1000,
        )
        const pid = child.pid
        if (pid !== undefined && process.platform === 'linux')
          poll = setInterval(() => {
            void peakMb(pid).then((mb) => {
              if (mb !== undefined && mb > limits.maxReaderMb)
                over(
                  overLimit(
                    `${label} takes ${this.spec.reader} more than ${limits.maxReaderMb} MiB of memory to read`,
                    '--max-reader-mb',
                  ),
                )
            })
          }, POLL_MS)
        child.send({id, request})
      })
    } finally {
      clearTimeout(timer)
      clearInterval(poll)
      if (this.current === child && child.pid !== undefined) {
        const peak = await peakMb(child.pid)
        if (peak !== undefined && peak >= this.spec.keepUnderMb && this.current === child) {
          this.current = undefined
          child.kill()
        }
      }
    }
  }
}
