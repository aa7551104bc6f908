// How `mcp call` prints a tool's result: each text part (JSON pretty-printed when
// it parses), other parts named by their type.
import {formatJson} from './output.js'

/** The result's content as printed lines. */
export function toolResultLines(content: readonly {type: string; text?: unknown; mimeType?: unknown}[]): string[] {
  return content.map((c) => {
    if (c.type !== 'text' || typeof c.text !== 'string')
      return `[${c.type}${typeof c.mimeType === 'string' ? ` ${c.mimeType}` : ''}]`
    try {
      return formatJson(JSON.parse(c.text), true)
    } catch {
      return c.text // Plain text.
    }
  })
}
