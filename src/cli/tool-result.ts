// How `mcp call` prints a tool's result: each text part (JSON pretty-printed when
// it parses), other parts named by their type; secrets masked unless shown on purpose.
import {redact, redactJson} from '../schemas/secrets.js'
import {formatJson} from './output.js'

/** The result's content as printed lines; `show` keeps secrets (payment tokens, link signatures) as sent. */
export function toolResultLines(
  content: readonly {type: string; text?: unknown; mimeType?: unknown}[],
  show = false,
): string[] {
  return content.map((c) => {
    if (c.type !== 'text' || typeof c.text !== 'string')
      return `[${c.type}${typeof c.mimeType === 'string' ? ` ${c.mimeType}` : ''}]`
    try {
      const value: unknown = JSON.parse(c.text)
      return formatJson(show ? value : redactJson(value), true)
    } catch {
      return show ? c.text : redact(c.text) // Plain text.
    }
  })
}
