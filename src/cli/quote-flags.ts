import {Flags} from '@oclif/core'

import {TECHNIQUES} from '../schemas/common.js'
import {TAKEN_AS} from '../schemas/demand.js'
import type {QuoteFields} from '../services/demands/create.js'
import {UsageError} from './errors.js'

/** What the flags of the single quote built from flags (not with --file) share. */
const QUOTE = {exclusive: ['file'], helpGroup: 'SINGLE QUOTE'}

/** `demand create`'s flags for one quote without a file. */
export const singleQuoteFlags = {
  technique: Flags.string({...QUOTE, description: 'Technique of a single quote.', options: [...TECHNIQUES]}),
  material: Flags.string({...QUOTE, description: 'Material, for example PLA or Aluminium 6061.'}),
  quantity: Flags.integer({...QUOTE, description: 'Number of parts.', min: 1}),
  color: Flags.string({...QUOTE, description: 'Colour.'}),
  email: Flags.string({...QUOTE, description: 'Customer e-mail.'}),
  'first-name': Flags.string({...QUOTE, description: 'Customer first name.'}),
  'last-name': Flags.string({...QUOTE, description: 'Customer last name.'}),
  phone: Flags.string({...QUOTE, description: 'Customer phone.'}),
  currency: Flags.string({...QUOTE, description: 'Currency code (default: the business currency).'}),
  'taken-as': Flags.string({...QUOTE, description: 'QUOTE (default) or ORDER.', options: [...TAKEN_AS]}),
  'draft-id': Flags.string({
    ...QUOTE,
    description:
      'Your own draftId for the single quote (default: from its content and the day, so a re-run is the same demand).',
  }),
}

type SingleQuoteFlags = {
  [K in keyof typeof singleQuoteFlags]?: K extends 'quantity' ? number : string
}

/** The single quote's fields: from the flags, technique and material asked for in a terminal. */
export async function quoteFields(f: SingleQuoteFlags): Promise<QuoteFields> {
  const {askChoice, askText, canPrompt} = await import('./prompt.js')
  if (!canPrompt() && !f.technique && !f.material) {
    throw new UsageError(
      'Nothing to create: pass --file PATH (or --file - for stdin), or --technique and --material for one quote.',
    )
  }
  const technique = f.technique ?? (await askChoice({flag: '--technique', message: 'Technique:', choices: TECHNIQUES}))
  const material = f.material ?? (await askText({flag: '--material', message: 'Material:'}))
  const {quantity, color, email, phone, currency} = f
  const named = {firstName: f['first-name'], lastName: f['last-name'], takenAs: f['taken-as'], draftId: f['draft-id']}
  return {technique, material, quantity, color, email, phone, currency, ...named}
}
