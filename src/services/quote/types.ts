import type {ReadLimits} from '../../mesh/index.js'

/**
 * `mfg demand quote` and `quoteDemand`: what one demand's quote takes and gives.
 * `mfg demand watch --quote` calls quoteDemand with the same options.
 */

/** Guards for unattended runs: a demand outside one is skipped with the reason. */
export interface QuoteGuards {
  /** Skip when any part's unit price is above this. */
  maxUnitPrice?: number
  /** Skip when the demand's parts total is below this. */
  minTotal?: number
  /** Skip when the demand's parts total is above this. */
  maxTotal?: number
  /** Quote only demands whose every part is in one of these formats (file extensions: stl, obj, 3mf, step, iges, dxf). */
  onlyFormats?: string[]
}

export interface QuoteOptions {
  /** Write the prices (false: a dry run that reads and prices but changes nothing). */
  apply: boolean
  /** After writing, move the demand to quote_sent (the caller has confirmed). Needs `apply`. */
  send?: boolean
  /** Price on the legacy estimation (needs `currency`). */
  legacy?: boolean
  currency?: string
  /** Technology (machine) and material to price every part on, instead of what each part says. */
  technology?: string
  material?: string
  /** The part readers' limits, raised for trusted files (the defaults stop hostile ones). */
  limits?: ReadLimits
  /** Sheet thickness (mm) of DXF flat patterns whose demand does not say it. */
  thickness?: number
  /** PrusaSlicer's command line: FDM parts are sliced with it for print hours, filament and layers. */
  slicer?: {binary: string}
  guards?: QuoteGuards
  /** Write the parts that priced even when another part could not be read or priced. */
  allowPartial?: boolean
  /** Quote again even when the stored digest says nothing changed. */
  force?: boolean
  /** Where downloaded part files are kept, by content hash. */
  cacheDir: string
  /** Where the digests of written quotes are kept (they make reruns idempotent). */
  stateDir: string
  /** Called as each part file arrives. */
  onPart?: (p: {demandId: string; fileName: string; index: number; count: number}) => void
  signal?: AbortSignal
}

/** What a part measured, in the few figures a quote shows. */
export type PartFigures =
  | {
      kind: 'solid'
      /** X × Y × Z, mm. */
      size: [number, number, number]
      /** mm³ and mm². */
      volume: number
      area: number
      closed: boolean
    }
  | {
      kind: 'sheet'
      /** Bounding box of the flat pattern, mm. */
      size: [number, number]
      /** Outline area minus holes, mm²; cut length mm. */
      area: number
      cutLength: number
      pierces: number
      bends: number
      thickness: number | null
    }

export interface QuotedPart {
  /** Position in the demand's quoteModel. */
  index: number
  fileName: string
  format?: string
  bytes?: number
  sha256?: string
  /** Whether the file came from the local cache instead of a download. */
  cached?: boolean
  measured?: PartFigures
  service?: string | null
  technology?: string | null
  material?: string
  quantity: number
  unitPrice?: number
  /** The part's setup cost: total minus unit price × quantity, when the estimation's total holds one. */
  startupCost?: number
  total?: number
  currency?: string | null
  /** What the demand holds for this part now. */
  currentUnitPrice?: number
  /** New total minus what the demand holds for this part now (null when it holds nothing). */
  difference?: number | null
  /** Why this part could not be quoted. */
  error?: string
  /** The slicer whose print hours priced the part (`--slicer prusa`), with its version. */
  slicedBy?: string
}

/**
 * quoted: prices written; would-quote: a dry run priced it; unchanged: nothing changed
 * since the stored digest, nothing written; skipped: a guard or an unreadable part stopped
 * it (reason); failed: the service failed while quoting it (reason).
 */
export type QuoteStatus = 'quoted' | 'would-quote' | 'unchanged' | 'skipped' | 'failed'

export interface QuoteOutcome {
  demandId: string
  orderNumber?: number
  stage?: string
  status: QuoteStatus
  reason?: string
  parts: QuotedPart[]
  currency: string | null
  /** Sum of the parts' totals (null when a part could not be priced and nothing is written). */
  partsTotal: number | null
  /** The parts total the demand holds now (its subtotal). */
  currentPartsTotal: number | null
  /** partsTotal minus currentPartsTotal. */
  difference: number | null
  /** Whether prices were written and the demand moved to quote_sent. */
  written: boolean
  sent: boolean
  /** Digest of the files and pricing inputs and result. */
  digest?: string
  interface: 'v1' | 'legacy'
  /**
   * True on an outcome the interrupted `--all` run this one resumes had finished: read
   * from its journal and reported again, so the output covers every demand; not quoted again.
   */
  resumed?: true
}
