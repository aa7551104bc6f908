// The help pages' layout, as plain functions of the commands and topics: usage,
// arguments, flags by group with GLOBAL last, description, aliases, examples, wrapped
// to a width. The help class (index.ts) feeds them oclif's loaded commands; the tests
// feed them data of their own.

import {closest} from '../util/closest.js'

export interface ManifestFlag {
  name: string
  type: 'boolean' | 'option'
  char?: string
  description?: string
  summary?: string
  helpGroup?: string
  helpValue?: string | string[]
  options?: string[]
  default?: unknown
  required?: boolean
  multiple?: boolean
  allowNo?: boolean
  hidden?: boolean
  env?: string
  /** Relations to other flags, which oclif checks. */
  exclusive?: string[]
  dependsOn?: string[]
  exactlyOne?: string[]
  relationships?: unknown[]
}

export interface ManifestArg {
  name: string
  description?: string
  required?: boolean
  options?: string[]
  default?: unknown
}

export type ManifestExample = string | {description?: string; command: string}

export interface ManifestCommand {
  id: string
  summary?: string
  description?: string
  usage?: string | string[]
  hidden?: boolean
  aliases?: string[]
  args?: Record<string, ManifestArg>
  flags?: Record<string, ManifestFlag>
  examples?: ManifestExample[]
  /** False when the command takes arguments it does not declare. */
  strict?: boolean
}

/**
 * A help topic that is not a group of commands (`mfg help environment`): a summary
 * and sections of two-column rows, with an optional closing paragraph.
 */
export interface Guide {
  summary: string
  sections: {title: string; rows: [string, string][]}[]
  notes?: string
}

export interface HelpData {
  bin: string
  version: string
  description: string
  topics: Record<string, {description?: string; hidden?: boolean}>
  commands: Record<string, ManifestCommand>
  guides: Record<string, Guide>
}

/** What the argument list asks for, or undefined when it is not a help request. */
export type HelpRequest =
  {kind: 'root'} | {kind: 'topic'; id: string} | {kind: 'command'; id: string} | {kind: 'guide'; name: string}

type Names = Pick<HelpData, 'commands' | 'topics' | 'guides'>

const HELP_FLAGS = new Set(['--help', '-h'])

/**
 * Decides whether argv asks for help, and for what. Words are the arguments
 * before the first flag; `--help` after `--` is an argument, not a request.
 */
export function helpRequest(argv: string[], data: Names): HelpRequest | undefined {
  const end = argv.indexOf('--')
  const args = end === -1 ? argv : argv.slice(0, end)
  const wantsHelp = args.some((a) => HELP_FLAGS.has(a))
  let words = leadingWords(args)
  const explicit = words[0] === 'help'
  if (explicit) words = words.slice(1)
  if (args.length === 0 || (words.length === 0 && (explicit || wantsHelp))) return {kind: 'root'}

  // The longest run of words that names a command; what follows are its arguments.
  for (let n = words.length; n > 0; n--) {
    const id = words.slice(0, n).join(':')
    const command = data.commands[id]
    if (command) return explicit || wantsHelp ? {kind: 'command', id} : undefined
  }
  const id = words.join(':')
  // A topic alone (`mfg demand`) lists its commands, as does asking for its help.
  if (isTopic(id, data)) return explicit || wantsHelp || words.length === args.length ? {kind: 'topic', id} : undefined
  if ((explicit || wantsHelp) && Object.hasOwn(data.guides, id)) return {kind: 'guide', name: id}
  return undefined
}

function leadingWords(args: string[]): string[] {
  const words: string[] = []
  for (const a of args) {
    if (a.startsWith('-')) break
    words.push(a)
  }
  return words
}

function isTopic(id: string, data: Pick<HelpData, 'commands' | 'topics'>): boolean {
  if (id === '') return false
  if (Object.hasOwn(data.topics, id)) return true
  return Object.keys(data.commands).some((c) => c.startsWith(`${id}:`))
}

/** Renders the requested help page; lines are wrapped to `width` columns. */
export function renderHelp(request: HelpRequest, data: HelpData, width = 80): string {
  const w = Math.max(40, Math.min(width, 120))
  switch (request.kind) {
    case 'root':
      return renderRoot(data, w)
    case 'topic':
      return renderTopic(request.id, data, w)
    case 'command':
      return renderCommand(data.commands[request.id]!, data, w)
    case 'guide':
      return renderGuide(request.name, data, w)
  }
}

const INDENT = '  '

/**
 * Orders ids and flag names (ASCII) by code unit. localeCompare would give the
 * same order here but starts ICU's collator on first use, which costs a Node
 * process tens of milliseconds.
 */
function byCodeUnit(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}

function spaced(id: string): string {
  return id.replaceAll(':', ' ')
}

/** Fills in the two templates our texts use: `<%= config.bin %>` and `<%= command.id %>`. */
function fill(text: string, bin: string, id: string): string {
  return text.replaceAll(/<%=\s*config\.bin\s*%>/g, bin).replaceAll(/<%=\s*command\.id\s*%>/g, spaced(id))
}

/** Greedy word wrap of one paragraph; words longer than the width get a line of their own. */
function wrap(text: string, width: number): string[] {
  const lines: string[] = []
  for (const paragraph of text.split('\n')) {
    let line = ''
    for (const word of paragraph.split(/ +/)) {
      if (line === '') line = word
      else if (line.length + 1 + word.length <= width) line += ` ${word}`
      else {
        lines.push(line)
        line = word
      }
    }
    lines.push(line)
  }
  return lines
}

function section(title: string, body: string[]): string {
  return [title, ...body].join('\n')
}

/** Two columns: names padded to the widest (capped), descriptions wrapped beside them. */
function table(rows: [string, string][], width: number): string[] {
  const nameWidth = Math.min(Math.max(0, ...rows.map(([n]) => n.length)), Math.floor(width / 2.5))
  const descWidth = Math.max(20, width - INDENT.length - nameWidth - 2)
  const out: string[] = []
  for (const [name, desc] of rows) {
    const lines = desc === '' ? [''] : wrap(desc, descWidth)
    if (name.length > nameWidth) {
      out.push(`${INDENT}${name}`)
      for (const l of lines) out.push(`${INDENT}${' '.repeat(nameWidth + 2)}${l}`.trimEnd())
    } else {
      out.push(`${INDENT}${name.padEnd(nameWidth)}  ${lines[0]}`.trimEnd())
      for (const l of lines.slice(1)) out.push(`${INDENT}${' '.repeat(nameWidth + 2)}${l}`.trimEnd())
    }
  }
  return out
}

function firstLine(c: ManifestCommand): string {
  return (c.summary ?? c.description ?? '').split('\n')[0]!.trim()
}

function visibleCommands(data: HelpData): ManifestCommand[] {
  return Object.values(data.commands)
    .filter((c) => !c.hidden)
    .sort((a, b) => byCodeUnit(a.id, b.id))
}

function renderRoot(data: HelpData, width: number): string {
  const commands = visibleCommands(data)
  const topicNames = new Set<string>()
  for (const c of commands) if (c.id.includes(':')) topicNames.add(c.id.split(':')[0]!)
  for (const [name, t] of Object.entries(data.topics)) if (!t.hidden && !name.includes(':')) topicNames.add(name)
  // A name is a topic when it has commands under it; a lone command is listed as a command.
  const topicList = [...topicNames].filter((t) => commands.some((c) => c.id.startsWith(`${t}:`))).sort()
  const topics = topicList.map((t): [string, string] => [
    t,
    data.topics[t]?.description ?? firstLine(data.commands[t] ?? {id: t}),
  ])
  const top = commands
    .filter((c) => !c.id.includes(':') && !topicList.includes(c.id))
    .map((c): [string, string] => [c.id, fill(firstLine(c), data.bin, c.id)])
  if (!top.some(([id]) => id === 'help')) top.push(['help', `Show help for ${data.bin}, a topic or a command.`])
  top.sort((a, b) => byCodeUnit(a[0], b[0]))
  const guides = Object.entries(data.guides)
    .sort((a, b) => byCodeUnit(a[0], b[0]))
    .map(([name, g]): [string, string] => [name, g.summary])
  return [
    wrap(data.description, width).join('\n'),
    section('VERSION', [
      `${INDENT}${data.bin}/${data.version} ${process.platform}-${process.arch} node-${process.version}`,
    ]),
    section('USAGE', [`${INDENT}$ ${data.bin} [COMMAND]`]),
    section('TOPICS', table(topics, width)),
    section('COMMANDS', table(top, width)),
    ...(guides.length > 0 ? [section('HELP TOPICS', table(guides, width))] : []),
    `Run \`${data.bin} TOPIC\` to list a topic's commands and \`${data.bin} COMMAND --help\` for a command's flags.`,
  ].join('\n\n')
}

function renderTopic(id: string, data: HelpData, width: number): string {
  const commands = visibleCommands(data).filter((c) => c.id.startsWith(`${id}:`))
  const subtopics = new Set<string>()
  const rows: [string, string][] = []
  for (const c of commands) {
    const rest = c.id.slice(id.length + 1)
    if (rest.includes(':')) subtopics.add(`${id}:${rest.split(':')[0]}`)
    else rows.push([spaced(c.id), fill(firstLine(c), data.bin, c.id)])
  }
  const own = data.commands[id]
  const description = data.topics[id]?.description ?? (own ? firstLine(own) : '')
  const parts = [
    wrap(description, width).join('\n'),
    section('USAGE', [`${INDENT}$ ${data.bin} ${spaced(id)} COMMAND`]),
  ]
  if (subtopics.size > 0) {
    parts.push(
      section(
        'TOPICS',
        table(
          [...subtopics].sort().map((t): [string, string] => [spaced(t), data.topics[t]?.description ?? '']),
          width,
        ),
      ),
    )
  }
  parts.push(section('COMMANDS', table(rows, width)))
  parts.push(`Run \`${data.bin} ${spaced(id)} COMMAND --help\` for a command's flags.`)
  return parts.join('\n\n')
}

function flagLabel(f: ManifestFlag): string {
  const long = f.type === 'boolean' && f.allowNo ? `--[no-]${f.name}` : `--${f.name}`
  let label = f.char ? `-${f.char}, ${long}` : long
  if (f.type === 'option') {
    const value = Array.isArray(f.helpValue)
      ? f.helpValue.join('|')
      : (f.helpValue ?? (f.options ? '<option>' : '<value>'))
    label += `=${value}`
    if (f.multiple) label += '...'
  }
  return label
}

function flagText(f: ManifestFlag, bin: string, id: string): string {
  const parts = [
    fill(f.summary ?? f.description ?? '', bin, id)
      .split('\n')[0]!
      .trim(),
  ]
  if (f.required) parts.push('(required)')
  if (f.default !== undefined && f.default !== false && f.type === 'option')
    parts.push(`[default: ${String(f.default)}]`)
  if (f.env) parts.push(`[env: ${f.env}]`)
  let text = parts.filter(Boolean).join(' ')
  if (f.options) text += `\n<options: ${f.options.join('|')}>`
  return text
}

/** A command's page: its summary line, then the body (commandBody). */
function renderCommand(c: ManifestCommand, data: HelpData, width: number): string {
  const summary = commandSummary(c, data.bin)
  const body = commandBody(c, data, width)
  return summary ? `${wrap(summary, width).join('\n')}\n\n${body}` : body
}

/** The first line of a command's summary (or description), templates filled in. */
export function commandSummary(c: ManifestCommand, bin: string): string {
  return fill(firstLine(c), bin, c.id)
}

/**
 * A command's page below its summary: usage, arguments, flags, description, aliases,
 * examples. The reference (docs/commands.md) shows this under each command's summary.
 */
export function commandBody(c: ManifestCommand, data: Pick<HelpData, 'bin'>, width: number): string {
  const bin = data.bin
  const flags = Object.values(c.flags ?? {}).filter((f) => !f.hidden)
  const args = Object.values(c.args ?? {})
  const parts: string[] = []
  const summary = commandSummary(c, bin)

  const usage: string[] = []
  if (c.usage) {
    for (const u of Array.isArray(c.usage) ? c.usage : [c.usage]) usage.push(`${INDENT}$ ${bin} ${fill(u, bin, c.id)}`)
  } else {
    const words = [`$ ${bin} ${spaced(c.id)}`]
    for (const a of args) words.push(a.required ? a.name.toUpperCase() : `[${a.name.toUpperCase()}]`)
    for (const f of flags.filter((x) => x.required)) words.push(flagLabel(f).replace(/^-\w, /, ''))
    if (flags.some((f) => !f.required)) words.push('[FLAGS]')
    usage.push(...wrap(words.join(' '), width - INDENT.length - 2).map((l, i) => `${INDENT}${i === 0 ? '' : '  '}${l}`))
  }
  parts.push(section('USAGE', usage))

  if (args.length > 0) {
    const rows = args.map((a): [string, string] => {
      let text = fill(a.description ?? '', bin, c.id)
      if (a.default !== undefined) text += ` [default: ${String(a.default)}]`
      if (a.options) text += `\n<options: ${a.options.join('|')}>`
      return [a.name.toUpperCase(), text.trim()]
    })
    parts.push(section('ARGUMENTS', table(rows, width)))
  }

  // Ungrouped flags first, named groups next, the global ones last.
  const groups = new Map<string, ManifestFlag[]>()
  for (const f of flags) {
    const g = f.helpGroup ?? ''
    groups.set(g, [...(groups.get(g) ?? []), f])
  }
  const order = [...groups.keys()].sort((a, b) => rank(a) - rank(b) || byCodeUnit(a, b))
  for (const g of order) {
    const list = groups.get(g)!.sort((a, b) => byCodeUnit(a.name, b.name))
    const rows = list.map((f): [string, string] => [flagLabel(f), flagText(f, bin, c.id)])
    parts.push(section(g === '' ? 'FLAGS' : `${g.toUpperCase()} FLAGS`, table(rows, width)))
  }

  const description = c.description ? fill(c.description, bin, c.id).trim() : ''
  if (description && description !== summary) {
    const body = description.startsWith(summary) ? description.slice(summary.length).trim() : description
    if (body)
      parts.push(
        section(
          'DESCRIPTION',
          wrap(body, width - INDENT.length).map((l) => `${INDENT}${l}`.trimEnd()),
        ),
      )
  }

  if (c.aliases && c.aliases.length > 0) {
    parts.push(
      section(
        'ALIASES',
        c.aliases.map((a) => `${INDENT}$ ${bin} ${spaced(a)}`),
      ),
    )
  }

  if (c.examples && c.examples.length > 0) {
    const lines: string[] = []
    for (const e of c.examples) {
      if (lines.length > 0) lines.push('')
      if (typeof e === 'string') {
        lines.push(
          ...fill(e, bin, c.id)
            .split('\n')
            .map((l) => `${INDENT}${l.startsWith('$') ? l : `$ ${l}`}`),
        )
      } else {
        if (e.description)
          lines.push(...wrap(fill(e.description, bin, c.id), width - INDENT.length).map((l) => `${INDENT}${l}`))
        lines.push(`${INDENT}  $ ${fill(e.command, bin, c.id)}`)
      }
    }
    parts.push(section('EXAMPLES', lines))
  }
  return parts.join('\n\n')
}

function renderGuide(name: string, data: HelpData, width: number): string {
  const guide = data.guides[name]!
  const parts = [wrap(guide.summary, width).join('\n')]
  for (const s of guide.sections) parts.push(section(s.title, table(s.rows, width)))
  if (guide.notes) parts.push(wrap(fill(guide.notes, data.bin, ''), width).join('\n'))
  return parts.join('\n\n')
}

function rank(group: string): number {
  if (group === '') return 0
  if (group === 'GLOBAL') return 2
  return 1
}

/** The terminal's width for stdout, else COLUMNS, else 80. */
export function helpWidth(): number {
  if (process.stdout.isTTY && process.stdout.columns) return process.stdout.columns
  const env = Number(process.env.COLUMNS)
  return Number.isFinite(env) && env > 0 ? env : 80
}

/**
 * The words of argv when they name no command and no topic (a typo), else
 * undefined. `mfg demand lst` is unknown; `mfg api GET /x` is not (the
 * command `api` takes the rest as arguments).
 */
export function unknownCommand(argv: string[], data: Names): string[] | undefined {
  const end = argv.indexOf('--')
  const words = leadingWords(end === -1 ? argv : argv.slice(0, end))
  if (words.length === 0) return undefined
  for (let n = words.length; n > 0; n--) if (data.commands[words.slice(0, n).join(':')]) return undefined
  if (isTopic(words.join(':'), data) || Object.hasOwn(data.guides, words.join(':'))) return undefined
  // Only the words up to the first unknown one: `demand lst ID` is about `demand lst`.
  let known = 0
  while (known < words.length && isTopic(words.slice(0, known + 1).join(':'), data)) known++
  return words.slice(0, known + 1)
}

/**
 * The visible commands, topics and help topics closest to the words typed (at most
 * `max`, closest first), of those close enough to be what was meant; a help topic as
 * `help:NAME`, the command that shows it.
 */
export function suggestions(words: string[], data: Names, max = 3): string[] {
  const typed = words.join(':')
  const names = new Set<string>()
  for (const c of Object.values(data.commands)) {
    if (c.hidden) continue
    names.add(c.id)
    const parts = c.id.split(':')
    for (let n = 1; n < parts.length; n++) names.add(parts.slice(0, n).join(':'))
  }
  for (const name of Object.keys(data.guides)) names.add(name)
  // A help topic that is no command opens only as `mfg help NAME`.
  return closest(
    typed,
    [...names].filter((name) => name.split(':').length === words.length),
    max,
  ).map((name) => (Object.hasOwn(data.guides, name) ? `help:${name}` : name))
}
