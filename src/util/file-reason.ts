/**
 * Why a file could not be read or written, in a few words for a message
 * (`cannot read --file x.csv: no such file`): the common errno codes worded, any
 * other as the system said it. `writing`: a missing path is then its directory.
 */
export function fileReason(error: unknown, writing = false): string {
  switch ((error as NodeJS.ErrnoException).code) {
    case 'ENOENT':
      return writing ? 'no such directory' : 'no such file'
    case 'EISDIR':
      return 'it is a directory'
    case 'EACCES':
    case 'EPERM':
      return 'permission denied'
    case 'EROFS':
      return 'read-only file system'
    case 'ENOTDIR':
      return 'a part of the path is not a directory'
    case 'ENOSPC':
      return 'no space left on the device'
    case 'EFBIG':
      return 'file too large'
    default:
      return (error as Error).message
  }
}
