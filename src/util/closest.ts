// A leaf, like fields.ts: anything may import it, it imports nothing.

/**
 * Edit distance between two short strings: insertions, deletions, substitutions
 * and swaps of two neighbours (`emial` is one edit from `email`).
 */
export function editDistance(a: string, b: string): number {
  // Rows i-2, i-1 and i of the table: d[i][j] is the distance from a's first i characters to b's first j.
  let before: number[] = []
  let prev = Array.from({length: b.length + 1}, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const row = [i]
    for (let j = 1; j <= b.length; j++) {
      let d = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1))
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, before[j - 2]! + 1)
      row[j] = d
    }
    before = prev
    prev = row
  }
  return prev[b.length]!
}

/**
 * The names closest to what was typed (at most `max`, closest first, ties in
 * code-unit order), of those close enough to be what was meant: within a third
 * of its length in edits, and at least one. A name that differs only in case
 * counts as one edit.
 */
export function closest(typed: string, names: Iterable<string>, max = 3): string[] {
  const limit = Math.max(1, Math.floor(typed.length / 3))
  const lower = typed.toLowerCase()
  const near: {name: string; d: number}[] = []
  for (const name of names) {
    if (name === typed) continue
    const d = name.toLowerCase() === lower ? 1 : editDistance(typed, name)
    if (d <= limit) near.push({name, d})
  }
  return near
    .sort((a, b) => a.d - b.d || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .slice(0, max)
    .map((x) => x.name)
}
