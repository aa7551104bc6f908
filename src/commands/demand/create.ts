import {randomUUID} from 'node:crypto'

import {Flags} from '@oclif/core'

import {BaseCommand} from '../../cli/base-command.js'
import {DEMAND_CREATE_COLUMNS, displayRecord} from '../../cli/demands.js'
import {UsageError} from '../../cli/errors.js'
import {fileFlag, listFlags} from '../../cli/flags.js'
import {TECHNIQUES} from '../../schemas/common.js'
import {TAKEN_AS, type CreateDemandItem, type DemandRecord} from '../../schemas/demand.js'
import {createPreparedQuotes, prepareQuotes} from '../../services/demands/create.js'

export default class DemandCreate extends BaseCommand {
  static override summary = 'Create quote requests from a file, stdin, or flags.'
  static override description = `Reads a JSON array, a single JSON object, or NDJSON (one object per line) from --file PATH, or from stdin with --file -; or builds one simple quote from flags.

Every row is checked against the create schema before anything is sent: if any row is invalid, one message lists each problem as "row N: field: reason (allowed: ...)", nothing is created, and the exit code is 2.

Rows are sent in chunks of at most 100 (the service's limit). Each row without a draftId gets a deterministic one (mfg- plus a hash of the input and the row number) and each chunk an Idempotency-Key derived from them, so retrying, or running the same file again, never creates duplicates: the service answers with the demands it already has.`
  static override examples = [
    '<%= config.bin %> <%= command.id %> --file examples/quotes.json',
    'cat quotes.ndjson | <%= config.bin %> <%= command.id %> --file - --json',
    '<%= config.bin %> <%= command.id %> --technique 3D_PRINTING --material PLA --quantity 10 --email buyer@example.com --first-name Ada --last-name Lovelace',
    '<%= config.bin %> <%= command.id %> --file big.json --dry-run',
  ]
  static override flags = {
    file: fileFlag('JSON array, JSON object or NDJSON file of create requests; - reads stdin.'),
    technique: Flags.string({
      description: 'Technique of a single quote.',
      options: [...TECHNIQUES],
      exclusive: ['file'],
      helpGroup: 'SINGLE QUOTE',
    }),
    material: Flags.string({
      description: 'Material, for example PLA or Aluminium 6061.',
      exclusive: ['file'],
      helpGroup: 'SINGLE QUOTE',
    }),
    quantity: Flags.integer({description: 'Number of parts.', min: 1, exclusive: ['file'], helpGroup: 'SINGLE QUOTE'}),
    color: Flags.string({description: 'Colour.', exclusive: ['file'], helpGroup: 'SINGLE QUOTE'}),
    email: Flags.string({description: 'Customer e-mail.', exclusive: ['file'], helpGroup: 'SINGLE QUOTE'}),
    'first-name': Flags.string({description: 'Customer first name.', exclusive: ['file'], helpGroup: 'SINGLE QUOTE'}),
    'last-name': Flags.string({description: 'Customer last name.', exclusive: ['file'], helpGroup: 'SINGLE QUOTE'}),
    phone: Flags.string({description: 'Customer phone.', exclusive: ['file'], helpGroup: 'SINGLE QUOTE'}),
    currency: Flags.string({
      description: 'Currency code (default: the business currency).',
      exclusive: ['file'],
      helpGroup: 'SINGLE QUOTE',
    }),
    'taken-as': Flags.string({
      description: 'QUOTE (default) or ORDER.',
      options: [...TAKEN_AS],
      exclusive: ['file'],
      helpGroup: 'SINGLE QUOTE',
    }),
    'draft-id': Flags.string({
      description: 'Your own draftId; creating again with it answers the same demand.',
      exclusive: ['file'],
      helpGroup: 'SINGLE QUOTE',
    }),
    'dry-run': Flags.boolean({description: 'Validate and show what would be sent; send nothing.'}),
    ...listFlags(DEMAND_CREATE_COLUMNS),
  }

  async run(): Promise<DemandRecord[] | CreateDemandItem[]> {
    const {flags} = await this.parse(DemandCreate)
    let rows: unknown[]
    let identity: string
    let rowLabel: ((i: number) => string) | undefined
    if (flags.file !== undefined) {
      const {parseRows, readTextInput} = await import('../../cli/input.js')
      const {text, source} = await readTextInput(flags.file)
      const doc = parseRows(text, source)
      rows = doc.rows
      identity = doc.contentHash
      if (doc.lines) {
        const lines = doc.lines
        rowLabel = (i) => `row ${i + 1} (line ${lines[i]})`
      }
    } else {
      rows = [await this.singleQuote(flags)]
      // One quote from flags is a new demand each run, unless --draft-id names it.
      identity = randomUUID()
    }
    const prepared = prepareQuotes(rows, {identity, ...(rowLabel ? {rowLabel} : {})})
    if (prepared.ignored.length > 0) {
      const shown = prepared.ignored.slice(0, 10).map((l) => `  ${l}`)
      if (prepared.ignored.length > 10) shown.push(`  … and ${prepared.ignored.length - 10} more rows`)
      this.note(`Warning: unknown fields are not sent:\n${shown.join('\n')}`)
    }
    if (flags['dry-run']) {
      this.note(
        `${prepared.items.length} row(s) valid; would send ${prepared.chunks.length} request(s). Nothing was sent (--dry-run).`,
      )
      return prepared.items
    }
    const ctx = await this.context(flags).service()
    const records = await createPreparedQuotes(ctx, prepared, {
      onChunk: (done, total) => {
        if (prepared.chunks.length > 1) this.note(`… ${done}/${total}`)
      },
    })
    const shown = records.map(displayRecord)
    if (!this.jsonEnabled()) {
      const {printList, sortRows} = await import('../../cli/render.js')
      printList(sortRows(shown, flags.sort), flags, DEMAND_CREATE_COLUMNS)
    }
    const numbers = records.map((r) => r.orderNumber).filter((n): n is number => typeof n === 'number')
    const range = numbers.length > 0 ? ` (order numbers ${Math.min(...numbers)}–${Math.max(...numbers)})` : ''
    this.note(`Created ${records.length} demand(s)${range} in ${prepared.chunks.length} request(s).`)
    return shown
  }

  private async singleQuote(flags: {
    technique?: string
    material?: string
    quantity?: number
    color?: string
    email?: string
    'first-name'?: string
    'last-name'?: string
    phone?: string
    currency?: string
    'taken-as'?: string
    'draft-id'?: string
  }): Promise<Record<string, unknown>> {
    const {askChoice, askText, canPrompt} = await import('../../cli/prompt.js')
    if (!canPrompt() && !flags.technique && !flags.material) {
      throw new UsageError(
        'Nothing to create: pass --file PATH (or --file - for stdin), or --technique and --material for one quote.',
      )
    }
    const technique =
      flags.technique ?? (await askChoice({flag: '--technique', message: 'Technique:', choices: TECHNIQUES}))
    const material = flags.material ?? (await askText({flag: '--material', message: 'Material:'}))
    return {
      technique,
      material,
      ...(flags.quantity === undefined ? {} : {quantity: flags.quantity}),
      ...(flags.color ? {color: flags.color} : {}),
      ...(flags.email ? {email: flags.email} : {}),
      ...(flags['first-name'] ? {firstName: flags['first-name']} : {}),
      ...(flags['last-name'] ? {lastName: flags['last-name']} : {}),
      ...(flags.phone ? {phone: flags.phone} : {}),
      ...(flags.currency ? {currency: flags.currency} : {}),
      ...(flags['taken-as'] ? {jobDetails: {takenAs: flags['taken-as']}} : {}),
      ...(flags['draft-id'] ? {draftId: flags['draft-id']} : {}),
    }
  }
}
