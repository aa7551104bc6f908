import {Writable} from 'node:stream'
import {setImmediate as nextTurn} from 'node:timers/promises'

import {describe, expect, it} from 'vitest'

import {streamOrCollect, streamOut} from '../../src/cli/stdio.js'

/** A stream that keeps each write apart. */
function recorder() {
  const writes: string[] = []
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      writes.push(chunk.toString())
      done()
    },
  })
  return {writes, stream}
}

describe('streamOut', () => {
  it('writes the first line at once, then the lines of one turn of the event loop as one write, in order, each ended by a newline', async () => {
    const {writes, stream} = recorder()
    const out = streamOut(stream)
    out.line('{"a":0}')
    expect(writes).toEqual(['{"a":0}\n'])
    out.line('{"a":1}')
    out.line('{"a":2}\n')
    expect(writes).toEqual(['{"a":0}\n'])
    await nextTurn()
    expect(writes).toEqual(['{"a":0}\n', '{"a":1}\n{"a":2}\n'])
    out.line('{"a":3}')
    await nextTurn()
    expect(writes).toEqual(['{"a":0}\n', '{"a":1}\n{"a":2}\n', '{"a":3}\n'])
  })

  it('flush() writes what waits at once, and nothing twice', async () => {
    const {writes, stream} = recorder()
    const out = streamOut(stream)
    out.line('first')
    out.line('x')
    out.flush()
    expect(writes).toEqual(['first\n', 'x\n'])
    out.flush()
    await nextTurn()
    expect(writes).toEqual(['first\n', 'x\n'])
  })

  it('does not hold a long burst: 64 KiB of waiting lines go out without waiting for the turn', () => {
    const {writes, stream} = recorder()
    const out = streamOut(stream)
    const line = 'y'.repeat(1023)
    for (let i = 0; i < 200; i++) out.line(line)
    expect(writes.length).toBeGreaterThanOrEqual(3)
    out.flush()
    expect(writes.join('')).toBe(`${line}\n`.repeat(200))
  })

  it('streamOrCollect: without a line function keeps the items; with one writes each to stdout and keeps none', async () => {
    async function* items() {
      yield {n: 1}
      await nextTurn()
      yield {n: 2}
    }
    expect(await streamOrCollect(items())).toEqual([{n: 1}, {n: 2}])
    const written: string[] = []
    const write = process.stdout.write.bind(process.stdout)
    process.stdout.write = ((chunk: string) => written.push(chunk) > 0) as typeof process.stdout.write
    try {
      expect(await streamOrCollect(items(), (i) => JSON.stringify(i))).toEqual([])
    } finally {
      process.stdout.write = write
    }
    expect(written.join('')).toBe('{"n":1}\n{"n":2}\n')
  })
})
