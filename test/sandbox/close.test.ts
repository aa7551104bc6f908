import {connect} from 'node:net'

import {describe, expect, it} from 'vitest'

import {startTestSandbox} from '../helpers/sandbox.js'

describe('sandbox close()', () => {
  it('ends even when a client stopped in the middle of sending its request, dropping that connection', async () => {
    const sandbox = await startTestSandbox()
    const demo = sandbox.businesses[0]!
    const socket = connect(Number(new URL(sandbox.url).port), '127.0.0.1')
    await new Promise<void>((ok) => socket.once('connect', () => ok()))
    let answer = ''
    const continued = new Promise<void>((ok) =>
      socket.on('data', (chunk: Buffer) => {
        answer += chunk.toString()
        if (answer.includes('\r\n\r\n')) ok()
      }),
    )
    const dropped = new Promise<void>((ok) => socket.once('close', () => ok()))
    // The headers of a request whose body never comes. Node answers `100 Continue` once
    // it has read them, so close() is called only when the server holds the request in
    // flight (called at once, it could find the connection not yet read and reset it).
    // Fastify sets no request time-out, so without a limit on close()'s wait for that
    // request it would never end.
    socket.write(
      [
        `POST /api/public/v1/demand/create-quotes/${demo.id} HTTP/1.1`,
        'Host: 127.0.0.1',
        `Authorization: Bearer ${demo.apiKey}`,
        'Content-Type: application/json',
        'Content-Length: 100',
        'Expect: 100-continue',
        '',
        '',
      ].join('\r\n'),
    )
    await continued
    await sandbox.close()
    await dropped
    expect(socket.destroyed).toBe(true)
    // Nothing was answered but the go-ahead: the request never arrived whole.
    expect(answer).toBe('HTTP/1.1 100 Continue\r\n\r\n')
  })
})
