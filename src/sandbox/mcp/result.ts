import type {CallToolResult} from '@modelcontextprotocol/sdk/types.js'

import {limitAdvice, MeshError} from '../../mesh/index.js'
import {ApiError, errorBody} from '../errors.js'
import {PricingInputError} from '../pricing.js'
import type {Business} from '../store/businesses.js'
import type {SandboxContext} from '../context.js'

/** What every tool runs with: the sandbox, the key's business, and the origin signed links point at. */
export interface ToolEnv {
  ctx: SandboxContext
  business: Business
  /** Origin of signed file links (the sandbox's file host). */
  fileHost: string
}

/** A tool's answer: the JSON as text (for clients that read text) and as structured content. */
export function ok(value: Record<string, unknown>): CallToolResult {
  return {content: [{type: 'text', text: JSON.stringify(value)}], structuredContent: value}
}

/**
 * A failure the caller (or the model) can act on, as a tool error rather than a
 * JSON-RPC error: the text is the contract's error body, so a 409 of the HTTP
 * interface is `{"statusCode": 409, "error": "Conflict", "message": ...}` here.
 */
export function toolError(statusCode: number, message: string, details?: ApiError['details']): CallToolResult {
  return {content: [{type: 'text', text: JSON.stringify(errorBody(statusCode, message, details))}], isError: true}
}

/**
 * A reader's refusal in a tool's words: a file over a limit names the limit, not the
 * CLI flag that raises it, which a tool's caller has no way to pass.
 */
function meshProblem(error: MeshError): string {
  if (!error.limit) return error.message
  return error.message.replace(limitAdvice(error.limit.flag), ", over this service's limit for reading part files")
}

/** Runs a tool body; the sandbox's own input and stage errors become tool errors, anything else is a bug. */
export async function run(body: () => CallToolResult | Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await body()
  } catch (error) {
    if (error instanceof ApiError) return toolError(error.statusCode, error.message, error.details)
    if (error instanceof PricingInputError) return toolError(400, error.message, error.details)
    if (error instanceof MeshError) return toolError(400, `The part file cannot be measured: ${meshProblem(error)}.`)
    throw error
  }
}
