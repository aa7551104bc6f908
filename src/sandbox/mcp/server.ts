import {McpServer} from '@modelcontextprotocol/sdk/server/mcp.js'

import {registerMeasureTool} from './measure.js'
import {registerPricingTools} from './pricing.js'
import {registerQuoteTools} from './quotes.js'
import type {ToolEnv} from './result.js'

/** The interface's ten tools, in its order. */
export const TOOL_NAMES = [
  'list_quotes',
  'get_quote',
  'get_quote_file',
  'create_quotes',
  'update_quote',
  'estimate_price',
  'list_machines',
  'get_pricing_setup',
  'get_pattern_status',
  'measure_part',
] as const

const INSTRUCTIONS =
  "Tools of one manufacturer's account on the manufacturing quoting service: quotes and orders (list_quotes, get_quote, get_quote_file), price estimates (estimate_price, list_machines, get_pricing_setup, get_pattern_status) and part measurement (measure_part). create_quotes and update_quote are real changes that may email the customer: ask the user before calling them."

/** A server for one request and one business: the endpoint is stateless, so each POST gets its own. */
export function createMcpServer(env: ToolEnv): McpServer {
  const server = new McpServer(
    {name: 'mfg-sandbox', title: 'Manufacturing quoting service (sandbox)', version: '0.1.0'},
    {capabilities: {tools: {listChanged: false}}, instructions: INSTRUCTIONS},
  )
  registerQuoteTools(server, env)
  registerPricingTools(server, env)
  registerMeasureTool(server, env)
  return server
}
