// How `mcp call` prints a tool's result: each text part (JSON pretty-printed when
// it parses), an embedded resource's text under a line naming it, other parts named
// by their type, address and size; the structured content when no part is text.
// Secrets masked unless shown on purpose.
import {redact, redactJson} from '../schemas/secrets.js'
import {formatJson} from './output.js'

type Block = {type: string; [key: string]: unknown}

/** What `mcp call` prints of a result. */
export interface PrintedResult {
  content: readonly Block[]
  structuredContent?: unknown
}

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v)
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined)

/** Text as printed: JSON pretty-printed when it parses, else as it is. */
function textLine(text: string, show: boolean): string {
  try {
    const value: unknown = JSON.parse(text)
    return formatJson(show ? value : redactJson(value), true)
  } catch {
    return show ? text : redact(text) // Plain text.
  }
}

/** The size of base64 data in bytes, as a label. */
function size(data: unknown): string | undefined {
  if (typeof data !== 'string') return undefined
  const bytes = Math.floor((data.replace(/=+$/, '').length * 3) / 4)
  return `${bytes} byte${bytes === 1 ? '' : 's'}`
}

/** `[type uri mime, size]`: a part that is not text, named. */
function label(type: string, parts: (string | undefined)[], bytes?: string): string {
  const named = parts.filter((p): p is string => p !== undefined).join(' ')
  return `[${type}${named ? ` ${named}` : ''}${bytes ? `, ${bytes}` : ''}]`
}

/** The result's content as printed lines; `show` keeps secrets (payment tokens, link signatures) as sent. */
export function toolResultLines(result: PrintedResult, show = false): string[] {
  const uri = (v: unknown) => {
    const s = str(v)
    return s === undefined || show ? s : redact(s)
  }
  const lines = result.content.flatMap((c) => {
    if (c.type === 'text' && typeof c.text === 'string') return [textLine(c.text, show)]
    if (c.type === 'resource' && isRecord(c.resource)) {
      const r = c.resource
      if (typeof r.text === 'string') return [label('resource', [uri(r.uri), str(r.mimeType)]), textLine(r.text, show)]
      return [label('resource', [uri(r.uri), str(r.mimeType)], size(r.blob))]
    }
    if (c.type === 'resource_link') return [label('resource_link', [str(c.name), uri(c.uri), str(c.mimeType)])]
    return [label(c.type, [str(c.mimeType)], size(c.data))]
  })
  // A result whose data is in structured content alone (no text part to carry it too).
  const hasText = result.content.some((c) => c.type === 'text' && typeof c.text === 'string')
  if (!hasText && result.structuredContent !== undefined)
    lines.push(formatJson(show ? result.structuredContent : redactJson(result.structuredContent), true))
  return lines
}
