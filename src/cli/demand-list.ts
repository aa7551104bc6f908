import {Flags} from '@oclif/core'

import type {ApiClient} from '../api/http.js'
import type {LegacyDemandRecord} from '../schemas/read/types.js'
import {LEGACY_LIST_COLUMNS, LEGACY_LIST_LAYOUT, notFoundLine} from './demands.js'
import type {ListOutputFlags} from './flags.js'
import {streamOrCollect, writeErr} from './output.js'

/** `--ids` and `--ids-file`: stored demand ids read through the legacy list call; `others` are the flags they exclude. */
export function byIdsFlags(others: readonly string[]) {
  return {
    ids: Flags.string({
      description: 'Comma-separated demand ids to read through the legacy list call.',
      exclusive: ['ids-file', ...others],
      helpGroup: 'BY ID (LEGACY)',
    }),
    'ids-file': Flags.string({
      description: 'File of demand ids (one a line, or comma-separated); - reads stdin.',
      exclusive: ['ids', ...others],
      helpGroup: 'BY ID (LEGACY)',
      helpValue: 'FILE|-',
    }),
  }
}

/**
 * `demand list --ids`/`--ids-file`: stored ids in, legacy records out in the
 * same order, missing ids on stderr. The ids are all read before anything is
 * sorted, so a sort covers the whole result.
 */
export async function listByIds(
  flags: ListOutputFlags & {ids?: string; 'ids-file'?: string},
  client: ApiClient,
  json: boolean,
): Promise<LegacyDemandRecord[]> {
  const {listLegacyByIds, splitIds} = await import('../services/demands/legacy.js')
  let text = flags.ids ?? ''
  if (flags['ids-file'] !== undefined) {
    const {readTextInput} = await import('./input.js')
    text = (await readTextInput(flags['ids-file'], '--ids-file')).text
  }
  const ids = splitIds(text)
  const render = await import('./render.js')
  const streaming = flags.ndjson && !flags.sort
  const missing: string[] = []
  const line = streaming ? (r: LegacyDemandRecord) => render.ndjsonLine(r, flags, LEGACY_LIST_COLUMNS) : undefined
  let records = await streamOrCollect(listLegacyByIds({client}, ids, missing), line)
  if (!streaming) {
    records = render.sortRows(records, flags.sort)
    if (!json) render.printList(records, flags, LEGACY_LIST_COLUMNS, 'No demands.', LEGACY_LIST_LAYOUT)
  }
  if (missing.length > 0) writeErr(notFoundLine(missing, ids.length))
  return records
}
