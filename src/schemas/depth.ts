/**
 * JSON documents nest at most this many levels of objects and arrays, on both
 * sides: the sandbox refuses deeper request bodies (the real service's MongoDB
 * refuses deeper documents too) and the CLI's readers refuse deeper rows, so
 * nothing later (validation, a copy, JSON.stringify) can run out of stack.
 */
export const MAX_JSON_DEPTH = 100

/** Whether a parsed JSON value nests objects and arrays more than `max` levels deep (iterative). */
export function nestedDeeperThan(value: unknown, max = MAX_JSON_DEPTH): boolean {
  const stack: [unknown, number][] = [[value, 1]]
  while (stack.length > 0) {
    const [node, level] = stack.pop()!
    if (node === null || typeof node !== 'object') continue
    if (level > max) return true
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      if (child !== null && typeof child === 'object') stack.push([child, level + 1])
    }
  }
  return false
}
