/**
 * The one error the mesh readers throw for a file they cannot use: empty, truncated,
 * corrupt or of an unknown format. The message says what is wrong and where.
 */
export class MeshError extends Error {
  override name = 'MeshError'
  constructor(message: string) {
    super(message)
  }
}
