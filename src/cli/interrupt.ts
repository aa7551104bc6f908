import {EXIT_INTERRUPTED} from './errors.js'
import {writeErr} from './output.js'

export interface StopSignal {
  signal: AbortSignal
  /** The signal that asked to stop, if any. */
  received(): NodeJS.Signals | undefined
  /** The exit code for the signal received: 130 for SIGINT, 143 for SIGTERM. */
  exitCode(): number
  dispose(): void
}

/**
 * Graceful stop for long runs: the first SIGINT or SIGTERM aborts `signal`
 * (the run stops taking new work and lets what is in flight finish); a second
 * one leaves at once. `message` is printed on the first, after `clear`.
 */
export function stopOnSignals(message: string, clear: () => void = () => undefined): StopSignal {
  const controller = new AbortController()
  let first: NodeJS.Signals | undefined
  const handler = (sig: NodeJS.Signals): void => {
    // `clear` takes what the line holds (a progress bar) off before the message.
    clear()
    if (first) {
      writeErr('\nStopped at once.')
      process.exit(sig === 'SIGTERM' ? 143 : EXIT_INTERRUPTED)
    }
    first = sig
    writeErr(`\n${message}`)
    controller.abort()
  }
  // Other listeners step aside meanwhile: conf's atomic writes (when-exit) re-raise
  // the signal to kill the process, which would cut the graceful stop short. They
  // are put back afterwards, and their exit hooks still run on the normal exit.
  const signals = ['SIGINT', 'SIGTERM'] as const
  const saved = signals.map((sig) => [sig, process.rawListeners(sig)] as const)
  for (const sig of signals) {
    process.removeAllListeners(sig)
    process.on(sig, handler)
  }
  return {
    signal: controller.signal,
    received: () => first,
    exitCode: () => (first === 'SIGTERM' ? 143 : EXIT_INTERRUPTED),
    dispose() {
      for (const [sig, listeners] of saved) {
        process.removeListener(sig, handler)
        for (const l of listeners) process.on(sig, l as (...args: unknown[]) => void)
      }
    },
  }
}

/** Resolves with the first SIGINT or SIGTERM, for a command that serves until stopped; both handlers go then. */
export function untilStopped(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const stop = (sig: NodeJS.Signals) => {
      process.removeListener('SIGINT', stop)
      process.removeListener('SIGTERM', stop)
      resolve(sig)
    }
    process.on('SIGINT', stop)
    process.on('SIGTERM', stop)
  })
}
