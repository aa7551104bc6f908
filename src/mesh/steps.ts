// Long reads done in steps: a reader written as a generator yields after each piece of
// the file (about a megabyte of binary STL, 4 MB of text) how many bytes of it are done,
// or undefined after a stage of measuring. The same code runs at once (runSteps, for the
// synchronous API) or with a turn of the event loop between steps (runStepsAsync), so
// that a command stays responsive to Ctrl-C and can draw its progress on a big file.

/** Work in steps: yields bytes of the file done (undefined after a stage with none), returns the result. */
export type Steps<T> = Generator<number | undefined, T, void>

/** Runs the steps to the end, without pausing. */
export function runSteps<T>(steps: Steps<T>): T {
  for (;;) {
    const r = steps.next()
    if (r.done) return r.value
  }
}

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

/**
 * Runs the steps, giving the event loop a turn after each (signals, timers and output are
 * served there) and telling `onStep` what each yielded. A step that throws ends the run
 * with its error; the steps' own `finally` blocks (a file to close) run either way.
 */
export async function runStepsAsync<T>(steps: Steps<T>, onStep?: (done: number | undefined) => void): Promise<T> {
  let finished = false
  try {
    for (;;) {
      const r = steps.next()
      if (r.done) {
        finished = true
        return r.value
      }
      onStep?.(r.value)
      await turn()
    }
  } finally {
    if (!finished) steps.return(undefined as T)
  }
}
