import {execFileSync} from 'node:child_process'
import {readFileSync} from 'node:fs'
import http from 'node:http'
import https from 'node:https'
import {join} from 'node:path'
import type {AddressInfo} from 'node:net'

import {expect} from 'vitest'

import {ApiError} from '../../src/api/errors.js'

export interface Recorded {
  method: string
  url: string
  headers: http.IncomingHttpHeaders
  body: string
}

export type Handler = (req: Recorded, res: http.ServerResponse, index: number) => void | Promise<void>

export interface TestServer {
  url: string
  requests: Recorded[]
  /** TCP connections accepted so far. */
  connections(): number
  close(): Promise<void>
}

/** A real HTTP server (HTTPS with `tls`) on 127.0.0.1, port 0, recording every request. */
export async function startServer(handler: Handler, tls?: {key: string; cert: string}): Promise<TestServer> {
  const requests: Recorded[] = []
  let connections = 0
  const listener: http.RequestListener = (req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const rec: Recorded = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      }
      requests.push(rec)
      void Promise.resolve(handler(rec, res, requests.length - 1)).catch((error: unknown) => {
        res.statusCode = 599
        res.end(String(error))
      })
    })
  }
  const server = tls ? https.createServer(tls, listener) : http.createServer(listener)
  server.on(tls ? 'secureConnection' : 'connection', () => connections++)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const {port} = server.address() as AddressInfo
  return {
    url: `${tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    requests,
    connections: () => connections,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

export function json(
  res: http.ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, {'content-type': 'application/json; charset=utf-8', ...headers})
  res.end(JSON.stringify(body))
}

export function errorBody(
  statusCode: number,
  error: string,
  message: string,
  details?: {path: string; message: string}[],
) {
  return details ? {statusCode, error, message, details} : {statusCode, error, message}
}

/** A port with nothing listening on it. */
export async function closedPort(): Promise<number> {
  const server = http.createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const {port} = server.address() as AddressInfo
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

/** A self-signed certificate for 127.0.0.1 and mfg-service.test, made with the openssl command line in `dir`. */
export function selfSignedCertificate(dir: string): {key: string; cert: string; certFile: string} {
  const keyFile = join(dir, 'key.pem')
  const certFile = join(dir, 'cert.pem')
  execFileSync(
    'openssl',
    ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1'].concat([
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      // The name too, for a service reached through a proxy (https.test.ts).
      'subjectAltName=IP:127.0.0.1,DNS:mfg-service.test',
      '-keyout',
      keyFile,
      '-out',
      certFile,
    ]),
    {stdio: 'ignore'},
  )
  return {key: readFileSync(keyFile, 'utf8'), cert: readFileSync(certFile, 'utf8'), certFile}
}

/** The ApiError a request fails with; the test fails if it succeeds or fails otherwise. */
export async function failure(p: Promise<unknown>): Promise<ApiError> {
  try {
    await p
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError)
    return error as ApiError
  }
  throw new Error('expected the request to fail')
}
