import {withMcpSession, type McpCallResult, type McpTool} from '../../api/mcp.js'

export {resultValue, toolError} from '../../api/mcp.js'
import type {ServiceContext} from '../context.js'
import {InputError} from '../errors.js'
import {closest} from '../../util/closest.js'
import {exactNumber, type FieldPair} from '../api/fields.js'

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
 * objects, arrays), else the string, and so is a number JSON cannot carry as
 * written (a 21-digit tracking number). `--raw-arg key=value` is always the
 * string as written. A dotted key (`changes.priceTotal=12`) sets a nested field.
 */
export function applyArgs(
  base: Record<string, unknown>,
  pairs: readonly FieldPair[],
  inputSchema?: Record<string, unknown>,
): Record<string, unknown> {
  const args = structuredClone(base)
  for (const {text: pair, raw: asWritten} of pairs) {
    const flag = asWritten ? '--raw-arg' : '--arg'
    const eq = pair.indexOf('=')
    if (eq <= 0) throw new InputError(`${flag} ${pair}: expected key=value, for example ${flag} quoteId=65f0...`)
    const path = pair.slice(0, eq).split('.')
    if (path.some((p) => p === '')) throw new InputError(`${flag} ${pair}: the key has an empty part.`)
    const raw = pair.slice(eq + 1)
    const value = asWritten || typeOf(propertySchema(inputSchema, path)) === 'string' ? raw : jsonOrText(raw)
    let at: Record<string, unknown> = args
    for (const key of path.slice(0, -1)) {
      if (!isRecord(at[key])) at[key] = {}
      at = at[key] as Record<string, unknown>
    }
    at[path[path.length - 1] as string] = value
  }
  return args
}

/** `raw` as JSON when it parses, else the text; a number JSON would change (too many digits) stays the text. */
function jsonOrText(raw: string): unknown {
  let value: unknown
  try {
    value = JSON.parse(raw)
  } catch {
    return raw
  }
  return typeof value === 'number' && exactNumber(raw.trim()) === undefined ? raw : value
}

/** What a tool's input schema says of the arguments given: problems stop the call, warnings do not. */
export interface ArgsCheck {
  problems: {path: string; reason: string}[]
  warnings: string[]
}

/**
 * Checks arguments against the tool's input schema (JSON Schema) where it is
 * plain: a required argument missing, and a name it does not list, with the
 * one probably meant. Where the schema takes names it does not list
 * (`additionalProperties` not false), such a name is sent as given and only
 * named in a warning when it looks like a listed one (`quantty`). The rest of
 * the checking is the tool's.
 */
export function checkArgs(args: Record<string, unknown>, inputSchema: unknown): ArgsCheck {
  const check: ArgsCheck = {problems: [], warnings: []}
  walk(args, inputSchema, [])
  return check

  function walk(value: Record<string, unknown>, schema: unknown, at: string[]): void {
    if (!isRecord(schema) || !isRecord(schema.properties)) return
    const properties = schema.properties
    const names = Object.keys(properties)
    for (const [key, child] of Object.entries(value)) {
      const path = [...at, key].join('.')
      if (Object.hasOwn(properties, key)) {
        if (isRecord(child)) walk(child, properties[key], [...at, key])
        continue
      }
      const near = closest(key, names, 1)[0]
      const meant = near === undefined ? '' : ` (did you mean ${[...at, near].join('.')}?)`
      if (schema.additionalProperties === false)
        check.problems.push({path, reason: `not an argument of the tool${meant}`})
      else if (near !== undefined)
        check.warnings.push(`${path} is not an argument the tool lists${meant}; sent as given`)
    }
    const required = Array.isArray(schema.required) ? schema.required.filter((r) => typeof r === 'string') : []
    for (const name of required) {
      if (value[name] !== undefined) continue
      const about = isRecord(properties[name]) ? properties[name].description : undefined
      check.problems.push({
        path: [...at, name].join('.'),
        reason: `is required${typeof about === 'string' ? ` (${firstSentence(about)})` : ''}`,
      })
    }
  }
}

export interface CallInput {
  tool: string
  /** From --input (a JSON object). */
  input?: Record<string, unknown>
  /** --arg key=value (typed) and --raw-arg key=value (strings), applied over input in that order. */
  args?: readonly FieldPair[]
  /** Asked before a tool that changes data is called; false stops with nothing sent to the tool. */
  confirm: (tool: McpTool, args: Record<string, unknown>) => Promise<boolean>
  /** Told of an argument sent as given that looks like a misspelt one. */
  warn?: (text: string) => void
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
    if (!tool) {
      const names = tools.map((t) => t.name)
      const near = closest(input.tool, names, 1)[0]
      throw new InputError(
        `No tool named ${JSON.stringify(input.tool)}${near ? ` (did you mean ${near}?)` : ''}; the endpoint has ${names.join(', ')}.`,
      )
    }
    const args = applyArgs(input.input ?? {}, input.args ?? [], tool.inputSchema)
    const {problems, warnings} = checkArgs(args, tool.inputSchema)
    if (problems.length > 0) {
      throw new InputError(
        `${tool.name}: invalid arguments; nothing was sent:\n${problems.map((p) => `  ${p.path}: ${p.reason}`).join('\n')}`,
        problems.map((p) => ({path: p.path, message: p.reason})),
      )
    }
    for (const warning of warnings) input.warn?.(`tool ${tool.name}: ${warning}`)
    if (changesData(tool) && !(await input.confirm(tool, args))) return {tool, arguments: args}
    return {tool, arguments: args, result: await s.call(tool.name, args)}
  })
}
