// What a command shows when the service confirmed a write without the record
// (201, 202 or 204 without a body): a success, said as such.
import {reasonPhrase} from '../api/status.js'

/** Printed under --json in place of the record the service did not send. */
export interface Confirmation {
  confirmed: true
  /** The status the service confirmed with: 201 created, 202 accepted for processing, 204 done. */
  status: number
  /** The record's id, when the command knows it (an update). */
  _id?: string
}

export function confirmation(status: number, id?: string): Confirmation {
  return {confirmed: true, status, ...(id === undefined ? {} : {_id: id})}
}

/** How the service confirmed, in words: `accepted it for processing (202 Accepted)`. */
export function confirmedAs(status: number): string {
  const reason = reasonPhrase(status)
  const code = `${status}${reason ? ` ${reason}` : ''}`
  return status === 202 ? `accepted it for processing (${code})` : `confirmed it (${code})`
}
