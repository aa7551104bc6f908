/** Whether a process runs (EPERM: it does, under another user). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** A lock file's holder: the pid it names, and the token or start time it wrote beside it. */
export interface LockHolder {
  pid: number
  token?: string
  at?: string
}

/** The holder a lock file's text names; undefined when it names none (cut short, or not a lock). */
export function lockHolder(text: string): LockHolder | undefined {
  let value: {pid?: unknown; token?: unknown; at?: unknown}
  try {
    value = JSON.parse(text) as typeof value
  } catch {
    return undefined
  }
  if (typeof value?.pid !== 'number') return undefined
  return {
    pid: value.pid,
    ...(typeof value.token === 'string' ? {token: value.token} : {}),
    ...(typeof value.at === 'string' ? {at: value.at} : {}),
  }
}

/** Sleeps the thread (a lock's short wait, in code that must stay synchronous). */
export function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms)
}
