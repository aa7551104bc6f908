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
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString()))
    const dropped = new Promise<void>((ok) => socket.once('close', () => ok()))
    // Half of the headers: the server is still reading the request when close() is called,
    // and without a limit on that wait it would last until Node's headers time-out (60 s).
    socket.write([`POST /api/public/v1/demand/create-quotes/${demo.id} HTTP/1.1`, 'Host: 127.0.0.1', ''].join('\r\n'))
    await sandbox.close()
    await dropped
    expect(socket.destroyed).toBe(true)
    // Nothing was answered: the request never arrived whole.
    expect(answer).toBe('')
  })
})
