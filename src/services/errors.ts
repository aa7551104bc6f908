import type {ErrorDetail} from '../schemas/common.js'

/**
 * Invalid input found before anything was sent (bad JSON, a row that fails the
 * schema, a flag value that makes no sense). Exit code 2; nothing reached the service.
 */
export class InputError extends Error {
  readonly exitCode = 2
  readonly code = 'invalid_input'
  readonly details?: ErrorDetail[]

  constructor(message: string, details?: ErrorDetail[]) {
    super(message)
    this.name = 'InputError'
    this.details = details
  }
}
