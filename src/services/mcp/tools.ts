import {withMcpSession, type McpCallResult, type McpTool} from '../../api/mcp.js'

export {resultValue, toolError} from '../../api/mcp.js'
import type {ServiceContext} from '../context.js'
import {InputError} from '../errors.js'

/** `mcp tools` and `mcp call`: the endpoint's tools, and one call with its arguments checked first. */

/** Whether a tool changes data: marked destructive, or not marked read-only (MCP's defaults). */
export function changesData(tool: McpTool): boolean {
  return tool.annotations?.destructiveHint === true || tool.annotations?.readOnlyHint !== true
}

/** The first sentence of a description. */
export function firstSentence(text: string | undefined): string {
  if (!text) return ''
  const m = /^(.+?[.!?])(\s|$)/s.exec(text.trim())
  return (m?.[1] ?? text.trim()).replace(/\s+/g, ' ')
}

export type ToolRow = {
  name: string
  'what it does': string
  data: 'reads' | 'changes'
}

export function toolRows(tools: readonly McpTool[]): ToolRow[] {
  return tools.map((t) => ({
    name: t.name,
    'what it does': firstSentence(t.description),
    data: changesData(t) ? 'changes' : 'reads',
  }))
}

export async function listTools(ctx: Pick<ServiceContext, 'client'>): Promise<McpTool[]> {
  return withMcpSession(ctx.client, (s) => s.tools())
}

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v)

/** The JSON Schema `type` of a property, if the schema says (first of a list). */
function typeOf(schema: unknown): string | undefined {
  if (!isRecord(schema)) return undefined
  const t = schema.type
  if (typeof t === 'string') return t
  if (Array.isArray(t) && typeof t[0] === 'string') return t[0]
  if (Array.isArray(schema.enum) && schema.enum.every((v) => typeof v === 'string')) return 'string'
  return undefined
}

/** The schema of a dotted path inside an object schema, if it is described. */
function propertySchema(schema: unknown, path: string[]): unknown {
  let at = schema
  for (const key of path) {
    if (!isRecord(at) || !isRecord(at.properties)) return undefined
    at = at.properties[key]
  }
  return at
}

/**
 * Turns `--arg key=value` into a value: kept as a string where the tool's
 * schema wants a string; otherwise JSON when it parses (numbers, booleans,
 * objects, arrays), else the string. A dotted key (`changes.priceTotal=12`)
 * sets a nested field.
 */
export function applyArgs(
  base: Record<string, unknown>,
  pairs: readonly string[],
  inputSchema?: Record<string, unknown>,
): Record<string, unknown> {
  const args = structuredClone(base)
  for (const pair of pairs) {
    const eq = pair.indexOf('=')
    if (eq <= 0) throw new InputError(`--arg ${pair}: expected key=value, for example --arg quoteId=65f0...`)
    const path = pair.slice(0, eq).split('.')
    if (path.some((p) => p === '')) throw new InputError(`--arg ${pair}: the key has an empty part.`)
    const raw = pair.slice(eq + 1)
    let value: unknown = raw
    if (typeOf(propertySchema(inputSchema, path)) !== 'string') {
      try {
        value = JSON.parse(raw)
      } catch {
        value = raw
      }
    }
    let at: Record<string, unknown> = args
    for (const key of path.slice(0, -1)) {
      if (!isRecord(at[key])) at[key] = {}
      at = at[key] as Record<string, unknown>
    }
    at[path[path.length - 1] as string] = value
  }
  return args
}

export interface CallInput {
  tool: string
  /** From --input (a JSON object). */
  input?: Record<string, unknown>
  /** --arg key=value, applied over input. */
  args?: readonly string[]
  /** Asked before a tool that changes data is called; false stops with nothing sent to the tool. */
  confirm: (tool: McpTool, args: Record<string, unknown>) => Promise<boolean>
}

export interface CallOutcome {
  tool: McpTool
  arguments: Record<string, unknown>
  /** Undefined when the confirmation was declined. */
  result?: McpCallResult
}

/** Finds the tool, builds its arguments, confirms a change, and calls it, in one session. */
export async function callTool(ctx: Pick<ServiceContext, 'client'>, input: CallInput): Promise<CallOutcome> {
  return withMcpSession(ctx.client, async (s) => {
    const tools = await s.tools()
    const tool = tools.find((t) => t.name === input.tool)
    if (!tool)
      throw new InputError(
        `No tool named ${JSON.stringify(input.tool)}; the endpoint has ${tools.map((t) => t.name).join(', ')}.`,
      )
    const args = applyArgs(input.input ?? {}, input.args ?? [], tool.inputSchema)
    if (changesData(tool) && !(await input.confirm(tool, args))) return {tool, arguments: args}
    return {tool, arguments: args, result: await s.call(tool.name, args)}
  })
}
