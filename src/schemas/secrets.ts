// No zod here: every command loads this module at start-up, and it only needs a pattern.

/** Keys look like pk_business_<random>; a pasted display string may carry text around it. */
export const API_KEY_PATTERN = /pk_business_[A-Za-z0-9_-]+/

/**
 * Masks a secret for display: everything but the last 4 characters is hidden.
 * Short secrets are hidden whole, so nothing of them leaks.
 */
export function maskSecret(secret: string | undefined | null): string {
  if (!secret) return ''
  if (secret.length <= 8) return '****'
  return `****${secret.slice(-4)}`
}

/** A URL with the password of its `user:password@` part masked; any other text as it is. */
export function maskUrlPassword(url: string): string {
  return url.replace(
    /^([a-z][\w+.-]*:\/\/[^/?#@:]*:)([^/?#]*)@/i,
    (_m, head: string, pw: string) => `${head}${maskSecret(pw)}@`,
  )
}

/**
 * Reduces a pasted, displayed key to its `pk_business_...` part (interface,
 * Authentication 3). Returns the input trimmed when it holds no such part.
 */
export function extractApiKey(pasted: string): string {
  const match = API_KEY_PATTERN.exec(pasted)
  return match ? match[0] : pasted.trim()
}

/**
 * Replaces every occurrence of the given secrets, and anything shaped like an
 * API key or a link signature, in a piece of text by its masked form.
 */
export function redact(text: string, secrets: readonly (string | undefined | null)[] = []): string {
  let out = text
  for (const secret of secrets) {
    if (secret && secret.length >= 4) out = out.split(secret).join(maskSecret(secret))
  }
  out = out.replace(new RegExp(API_KEY_PATTERN.source, 'g'), (key) => maskSecret(key))
  out = out.replace(/(signature=)([0-9a-fA-F]{8,})/g, (_m, head: string, sig: string) => head + maskSecret(sig))
  return out
}

/**
 * Fields whose text is a secret wherever an answer holds them: webhook
 * subscriptions answer their `secret` in full, demands their payment token.
 */
export const SECRET_FIELDS: ReadonlySet<string> = new Set([
  'secret',
  'paymentAuthToken',
  'token',
  'authToken',
  'apiKey',
  'password',
])

/**
 * A copy of a JSON value for display, with what a service answer can hold of
 * secrets masked: the text of every SECRET_FIELDS field, link signatures and
 * the given secrets in any string.
 */
export function redactJson(value: unknown, secrets: readonly (string | undefined | null)[] = []): unknown {
  if (typeof value === 'string') return redact(value, secrets)
  if (Array.isArray(value)) return value.map((v) => redactJson(v, secrets))
  if (value === null || typeof value !== 'object') return value
  const out: Record<string, unknown> = {}
  for (const [key, v] of Object.entries(value)) {
    out[key] = SECRET_FIELDS.has(key) && typeof v === 'string' ? maskSecret(v) : redactJson(v, secrets)
  }
  return out
}
