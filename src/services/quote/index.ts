export {quoteDemand} from './quote.js'
export type {QuoteGuards, QuoteOptions, QuoteOutcome, QuotedPart, QuoteStatus, PartFigures} from './types.js'
