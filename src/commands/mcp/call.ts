import {Args, Flags} from '@oclif/core'

import {BaseCommand} from '../../cli/base-command.js'
import {objectFromFile, yesFlag} from '../../cli/flags.js'
import {writeOut} from '../../cli/output.js'

export default class McpCall extends BaseCommand {
  static override summary = "Call one tool of the service's MCP endpoint and print its result."
  static override description = `Arguments come from --input (a JSON object, from a file or - for stdin), then each --arg key=value over it. A value is taken as JSON when it parses (numbers, true/false, objects, arrays) unless the tool's schema wants a string there, or it is a number JSON would change (more digits than a number holds); a dotted key sets a nested field (--arg changes.priceTotal=120). --raw-arg key=value is always the string as written, for a field the schema leaves open (--raw-arg changes.trackId=00123456); it applies after --arg. \`mcp tools --json\` shows each tool's schema. They are checked against that schema before the call: a required argument missing, or a name the tool does not take, exits 2 with nothing sent and the name probably meant; a tool that takes names it does not list gets them as given, with a warning when one looks like a listed one.

Prints the result's text (JSON pretty-printed), an embedded resource's text, other parts (images, links) by type, address and size, and the structured content when no part is text; --json prints the structured content, else the text, else the parts. Secrets in the result are masked (payment tokens, the signatures of signed file links); --show-secrets prints them as the service sent them. A tool error (for example a stage move the rules refuse) exits 1 with its message.

A tool that changes data (create_quotes, update_quote: they may email the customer) asks for confirmation in a terminal; without a terminal it needs --yes, and without it nothing is called and the exit code is 2.`
  static override examples = [
    '<%= config.bin %> <%= command.id %> list_machines --arg service=3D_PRINTING',
    '<%= config.bin %> <%= command.id %> estimate_price --arg material=PLA --arg quantity=10 --arg \'slicingData={"weight":"42","volume":"33000"}\'',
    '<%= config.bin %> <%= command.id %> get_quote --arg quoteId=65f000060000000000000002 --json',
    '<%= config.bin %> <%= command.id %> update_quote --arg quoteId=65f000060000000000000002 --arg status=special_verified --yes',
    '<%= config.bin %> <%= command.id %> update_quote --arg quoteId=65f000060000000000000002 --raw-arg changes.trackId=00123456789 --yes',
    'cat examples/create-quotes.json | <%= config.bin %> <%= command.id %> create_quotes --input - --yes',
  ]
  static override args = {tool: Args.string({description: 'Tool name (see `mcp tools`).', required: true})}
  static override flags = {
    arg: Flags.string({
      description: 'A tool argument as key=value (repeatable; dotted keys set nested fields).',
      multiple: true,
      helpValue: 'KEY=VALUE',
    }),
    'raw-arg': Flags.string({
      description: 'A tool argument as key=value whose value is a string as written (a tracking number, a zip code).',
      multiple: true,
      helpValue: 'KEY=VALUE',
    }),
    input: Flags.string({
      description: 'The tool arguments as a JSON object, from a file or - (stdin).',
      helpValue: 'FILE|-',
    }),
    yes: yesFlag,
    'show-secrets': Flags.boolean({
      description: 'Print payment tokens and signed file links in the result in full (masked by default).',
    }),
  }

  async run(): Promise<unknown> {
    const {args, flags} = await this.parse(McpCall)
    const input = await objectFromFile(flags.input, '--input')
    const {client} = await this.context(flags).session()
    const [{callTool, firstSentence, resultValue, toolError}, {confirmOrYes}] = await Promise.all([
      import('../../services/mcp/tools.js'),
      import('../../cli/prompt.js'),
    ])
    const outcome = await callTool(
      {client},
      {
        tool: args.tool,
        ...(input ? {input} : {}),
        args: [
          ...(flags.arg ?? []).map((text) => ({text, raw: false})),
          ...(flags['raw-arg'] ?? []).map((text) => ({text, raw: true})),
        ],
        confirm: (tool) =>
          confirmOrYes({
            yes: flags.yes,
            message: `${tool.name} changes data (${firstSentence(tool.description)}) Call it?`,
          }),
        // Seen under --json too: the call goes ahead, and its answer may not be the one meant.
        warn: (text) => this.warnNote(text, true),
      },
    )
    const result = outcome.result
    if (!result) {
      this.note('Nothing was sent.')
      return undefined
    }
    if (result.isError) throw toolError(args.tool, result)
    const show = flags['show-secrets']
    if (!this.jsonEnabled()) {
      const {toolResultLines} = await import('../../cli/tool-result.js')
      for (const line of toolResultLines(result, show)) writeOut(line)
    }
    // A result of images or resources only: --json prints its parts.
    const found = resultValue(result)
    const value = found === undefined ? result.content : found
    return show ? value : (await import('../../schemas/secrets.js')).redactJson(value)
  }
}
