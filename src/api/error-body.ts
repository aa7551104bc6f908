// Reads the message out of an error answer, whatever shape the service gave it:
// the contract's {statusCode, error, message, details}, the common JSON shapes of
// other services, RFC 9457 problem details, an HTML page from a proxy, plain text,
// or nothing. A pure function of the decoded body and the status, tested by table.
import type {ErrorDetail} from '../schemas/common.js'
import {excerpt} from '../schemas/read/core.js'
import {escapeRegExp} from '../util/regexp.js'
import {reasonPhrase} from './status.js'

/** What an error answer says. */
export interface ErrorBodyReading {
  /** One line for the user: the service's own words, or `HTTP 502 Bad Gateway` and a short line. */
  message: string
  /** Shown after the status (`→ 400 Bad Request`): the body's status text or the reason phrase. */
  statusText?: string
  /** Per-field problems, when the body lists them. */
  details?: ErrorDetail[]
}

/** The longest excerpt of a page or a long text that goes into a message. */
export const SHORT_LINE = 100
/** At most this many messages of an `errors` list are joined into one line. */
const JOINED = 3

/**
 * The message of an error answer. `body` is the decoded body: parsed JSON (an
 * object or array), text, or undefined for none.
 */
export function readErrorBody(body: unknown, status: number): ErrorBodyReading {
  const reason = reasonPhrase(status)
  const bare = `HTTP ${status}${reason ? ` ${reason}` : ''}`
  const withReason = (r: ErrorBodyReading): ErrorBodyReading =>
    r.statusText || !reason ? r : {...r, statusText: reason}
  if (Array.isArray(body)) return withReason(fromList(body) ?? {message: `${bare}: ${excerpt(body, SHORT_LINE)}`})
  if (isObject(body)) return withReason(fromObject(body, reason) ?? {message: `${bare}: ${excerpt(body, SHORT_LINE)}`})
  if (typeof body !== 'string' || body.trim() === '') return {message: bare}
  const markup = markupOf(body)
  if (markup) {
    const line = pageLine(body, status, reason)
    const what = markup === 'html' ? 'an HTML page' : 'an XML document'
    return {message: line ? `${bare}, ${what}: "${line}"` : `${bare}, ${what}`}
  }
  const text = oneLine(body)
  // A short line of text is the service's message; a long one is excerpted after the status.
  if (text.length <= SHORT_LINE && !/\n\s*\S/.test(body.trim())) return withReason({message: text})
  return {message: `${bare}: ${short(firstLine(body))}`}
}

/** The shapes of a JSON error object, first match wins. */
function fromObject(o: Record<string, unknown>, reason: string | undefined): ErrorBodyReading | undefined {
  const details = detailsOf(o.details) ?? detailsOf(o.errors) ?? fieldMap(o.errors)
  const withDetails = (r: ErrorBodyReading): ErrorBodyReading => (details ? {...r, details} : r)
  // The contract's and most frameworks' `message` (NestJS sends a list of them).
  const message = textOf(o.message) ?? joined(o.message)
  const error = textOf(o.error)
  if (message !== undefined) {
    return withDetails({message, ...(error !== undefined && error !== message ? {statusText: error} : {})})
  }
  // RFC 9457 problem details: `detail` says what happened, `title` the kind of problem.
  const detail = textOf(o.detail)
  const title = textOf(o.title)
  if (detail !== undefined) return withDetails({message: detail, ...(title ? {statusText: title} : {})})
  if (isObject(o.error)) {
    const inner = fromObject(o.error, reason)
    if (inner) return details && !inner.details ? {...inner, details} : inner
  }
  if (Array.isArray(o.errors)) {
    const listed = fromList(o.errors)
    if (listed) return listed
  }
  if (details && details.length > 0) return {message: summary(details.map((d) => d.message)), details}
  // OAuth's pair: `error` is a code, `error_description` the words.
  const described = textOf(o.error_description)
  if (described !== undefined) return {message: described, ...(error ? {statusText: error} : {})}
  // `error` alone is the message, unless it only repeats the reason phrase.
  if (error !== undefined && error.toLowerCase() !== reason?.toLowerCase()) return {message: error}
  for (const key of ['title', 'msg', 'description', 'reason'] as const) {
    const text = textOf(o[key])
    if (text !== undefined) return {message: text}
  }
  if (isObject(o.fault)) {
    const fault = textOf(o.fault.faultstring) ?? textOf(o.fault.message)
    if (fault !== undefined) return {message: fault}
  }
  return undefined
}

/** An `errors` list (or a bare array): strings, or objects with a message of their own. */
function fromList(list: unknown[]): ErrorBodyReading | undefined {
  const messages = list.map(itemMessage).filter((m): m is string => m !== undefined)
  if (messages.length === 0) return undefined
  const details = detailsOf(list)
  return {message: summary(messages), ...(details ? {details} : {})}
}

function itemMessage(item: unknown): string | undefined {
  if (typeof item === 'string') return item.trim() === '' ? undefined : oneLine(item)
  if (!isObject(item)) return undefined
  return (
    textOf(item.message) ??
    textOf(item.detail) ??
    textOf(item.title) ??
    textOf(item.msg) ??
    textOf(item.description) ??
    (isObject(item.error) ? itemMessage(item.error) : textOf(item.error))
  )
}

/** Up to three messages joined, or the first and how many more. */
function summary(messages: string[]): string {
  const unique = [...new Set(messages)]
  const joinedText = unique.slice(0, JOINED).join('; ')
  if (unique.length <= JOINED && joinedText.length <= 2 * SHORT_LINE) return joinedText
  return `${unique[0]} (and ${unique.length - 1} more)`
}

/** Per-field problems from a list whose items name their field (`path`, `field`, a JSON pointer...). */
function detailsOf(value: unknown): ErrorDetail[] | undefined {
  if (!Array.isArray(value)) return undefined
  const details: ErrorDetail[] = []
  for (const item of value) {
    if (!isObject(item)) continue
    const message = itemMessage(item)
    const path = pathOf(item)
    if (message !== undefined && path !== undefined) details.push({path, message})
  }
  return details.length > 0 ? details : undefined
}

function pathOf(item: Record<string, unknown>): string | undefined {
  for (const key of ['path', 'field', 'param', 'property', 'pointer', 'loc'] as const) {
    const value = item[key]
    if (typeof value === 'string') return value.replace(/^#?\//, '').replaceAll('/', '.')
    if (Array.isArray(value) && value.every((x) => typeof x === 'string' || typeof x === 'number')) {
      return value.join('.')
    }
  }
  if (isObject(item.source)) return pathOf(item.source)
  return undefined
}

/** `{"errors": {"email": ["is taken"], "name": "is required"}}` (Rails, Laravel). */
function fieldMap(value: unknown): ErrorDetail[] | undefined {
  if (!isObject(value) || Array.isArray(value)) return undefined
  const details: ErrorDetail[] = []
  for (const [path, v] of Object.entries(value)) {
    for (const m of Array.isArray(v) ? v : [v])
      if (typeof m === 'string' && m.trim() !== '') details.push({path, message: m})
  }
  return details.length > 0 ? details : undefined
}

function textOf(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined
  const text = oneLine(value)
  return text === '' ? undefined : text
}

function joined(value: unknown): string | undefined {
  if (!Array.isArray(value)) return undefined
  const texts = value.map(textOf).filter((t): t is string => t !== undefined)
  return texts.length > 0 ? summary(texts) : undefined
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** Whether a text is an HTML page (or a fragment of one) or an XML document rather than a message. */
export function markupOf(text: string): 'html' | 'xml' | undefined {
  const start = text.trimStart().slice(0, 200).toLowerCase()
  if (start.startsWith('<!doctype html') || start.startsWith('<html')) return 'html'
  if (start.startsWith('<?xml')) return /<html[\s>]/.test(start) ? 'html' : 'xml'
  if (!/^<[a-z][\w:-]*[\s/>]/.test(start) || !/<\/[a-z][\w:-]*\s*>/i.test(text)) return undefined
  return /^<(head|body|title|div|p|h\d|center|pre|span|table|main|section)[\s>]/.test(start) ? 'html' : 'xml'
}

const ENTITIES: Record<string, string> = {amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' '}

/** The visible text of a page: scripts, styles and comments dropped, tags removed, entities read. */
export function pageText(html: string): string {
  return oneLine(
    html
      .replace(/<!--[\s\S]*?-->/g, ' ')
      .replace(/<(script|style|head)\b[\s\S]*?<\/\1\s*>/gi, (m, tag: string) =>
        tag.toLowerCase() === 'head' ? (/<title[^>]*>([\s\S]*?)<\/title>/i.exec(m)?.[1] ?? ' ') : ' ',
      )
      .replace(/<[^>]*>/g, ' ')
      .replace(/&(#x[\da-f]+|#\d+|[a-z]+);/gi, (m, name: string) => {
        if (name[0] === '#') {
          const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : Number(name.slice(1))
          return code > 0 && code < 0x110000 ? String.fromCodePoint(code) : ' '
        }
        return ENTITIES[name.toLowerCase()] ?? m
      }),
  )
}

/**
 * One short line from a page: its text without the status and reason it repeats
 * (an nginx page says "502 Bad Gateway" twice, then "nginx"), at most SHORT_LINE
 * characters; empty when nothing else is said.
 */
function pageLine(html: string, status: number, reason: string | undefined): string {
  let text = pageText(html)
  // "404 Not Found" in any case; the reason alone only as the status line writes it,
  // so that a sentence of the page ("Demand 42 not found.") keeps its words.
  const said: [string, string][] = [
    [`${status} ${reason ?? ''}`.trim(), 'gi'],
    [String(status), 'g'],
  ]
  if (reason) said.splice(1, 0, [reason, 'g'])
  for (const [s, flags] of said) text = text.replace(new RegExp(`(?<!\\w)${escapeRegExp(s)}(?!\\w)`, flags), ' ')
  text = oneLine(text.replace(/^[\s:–—-]+|[\s:–—-]+$/g, ''))
  return short(text)
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim()
}

function firstLine(text: string): string {
  return oneLine(text.trim().split(/\r?\n/)[0] ?? '')
}

/** At most SHORT_LINE characters, cut at a word when one ends near the limit, with an ellipsis. */
export function short(text: string): string {
  if (text.length <= SHORT_LINE) return text
  const cut = text.slice(0, SHORT_LINE - 1)
  const space = cut.lastIndexOf(' ')
  return `${space > SHORT_LINE * 0.6 ? cut.slice(0, space) : cut}…`
}
