/**
 * A TLS failure as Node reports it: code EPROTO (or ERR_SSL_...) and OpenSSL's whole
 * error string, source file and line included. Read as the reason in OpenSSL's words
 * and whether the server answered the TLS greeting with something that is not TLS
 * (an https:// base URL whose server speaks plain http), which it does before any
 * byte of the request is sent.
 */
export interface TlsFailure {
  /** OpenSSL's reason, `wrong version number`. */
  reason: string
  /** The server does not speak TLS on that port: the request was never sent. */
  notTls: boolean
}

/** What OpenSSL says when the answer to its greeting is not TLS (an http server's 400 page, say). */
const NOT_TLS = /wrong version number|packet length too long|unknown protocol|http request|record layer failure/i

export function tlsFailure(error: {code?: unknown; message?: unknown}): TlsFailure | undefined {
  const code = typeof error.code === 'string' ? error.code : ''
  const message = typeof error.message === 'string' ? error.message : ''
  if (code !== 'EPROTO' && !code.startsWith('ERR_SSL_')) return undefined
  // `…:error:0A00010B:SSL routines:tls_validate_record_header:wrong version number:../deps/…:77:`
  const said = /SSL routines:[^:]*:([^:]+)/.exec(message)?.[1]
  const reason = (
    said ??
    code
      .replace(/^ERR_SSL_/, '')
      .replaceAll('_', ' ')
      .toLowerCase()
  ).trim()
  return {reason, notTls: NOT_TLS.test(reason) || NOT_TLS.test(code.replaceAll('_', ' '))}
}

/** The message for a TlsFailure, in the words of a user who chose the address. */
export function tlsFailureText(f: TlsFailure): string {
  return f.notTls
    ? `the server does not answer in TLS (${f.reason}): it may speak plain http on that port, so check whether the base URL should start with http:// instead of https://`
    : `the TLS handshake failed (${f.reason})`
}
