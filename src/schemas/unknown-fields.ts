import type * as z from 'zod'

import {catchallMode, defOf} from './schema-def.js'

/**
 * Fields an input names that its schema does not, at any depth. zod drops an
 * unknown field of a plain object (strip) without a word, refuses one of a
 * strict object, and keeps one of a loose object. What is dropped is what a
 * user loses without knowing: `shippingAddress.cty` for `shippingAddress.city`.
 * What is kept is sent as given, and a misspelt known field among them is lost
 * as surely (`quoteModel.0.fileNam`). This finds both (strict ones are zod's
 * to report), and makes the copy of an input that leaves the dropped ones out;
 * field-hints.ts says which known field was probably meant.
 * Read from the schema's public definition (`def`, the shapes), built once per schema.
 */

/** A field's place in an input: its keys and list indexes from the top. */
export type FieldPath = readonly (string | number)[]

/**
 * Where a schema names its fields: an object's names, and the objects and lists
 * below it. Every node has every property (null where it does not apply), so
 * the walk over each row reads one shape.
 */
export interface FieldTree {
  /** An object's field names; null for a list, or an object whose names are not a fixed list. */
  names: ReadonlySet<string> | null
  /** Whether the object drops other fields (zod's default). */
  drops: boolean
  /** Whether it keeps them (loose); a strict object, neither, refuses them. */
  keeps: boolean
  /** Fields whose values hold such objects further down. */
  below: ReadonlyMap<string, FieldTree> | null
  /** For a list: the tree of its items (an object's too, where a union takes either). */
  items: FieldTree | null
}

const treeNode = (parts: Partial<FieldTree>): FieldTree => ({
  names: null,
  drops: false,
  keeps: false,
  below: null,
  items: null,
  ...parts,
})

const trees = new WeakMap<z.ZodType, FieldTree | null>()

/** The schema's tree, or undefined when it names no field anywhere (any input passes as it is). */
export function fieldTree(schema: z.ZodType): FieldTree | undefined {
  let tree = trees.get(schema)
  if (tree === undefined) {
    tree = build(schema, 0) ?? null
    trees.set(schema, tree)
  }
  return tree ?? undefined
}

/** Deeper than any schema of the service: a guard against a schema that refers to itself. */
const MAX_DEPTH = 12

function build(schema: z.ZodType, depth: number): FieldTree | undefined {
  if (depth > MAX_DEPTH) return undefined
  const def = defOf(schema)
  switch (def.type) {
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
      return def.innerType ? build(def.innerType, depth + 1) : undefined
    case 'array': {
      const items = def.element ? build(def.element, depth + 1) : undefined
      return items ? treeNode({items}) : undefined
    }
    case 'object': {
      const shape = def.shape ?? {}
      const below = new Map<string, FieldTree>()
      for (const [key, child] of Object.entries(shape)) {
        const tree = build(child, depth + 1)
        if (tree) below.set(key, tree)
      }
      const mode = catchallMode(def.catchall)
      // A catchall of another schema (`.catchall(z.string())`) takes any name: not a fixed list.
      if (mode === undefined) return below.size > 0 ? treeNode({below}) : undefined
      return treeNode({
        names: new Set(Object.keys(shape)),
        drops: mode === 'strip',
        keeps: mode === 'loose',
        below: below.size > 0 ? below : null,
      })
    }
    case 'union':
      return unionTree(def.options ?? [], depth)
    default:
      // Records, unknown: what they take is not a fixed list of names.
      return undefined
  }
}

/**
 * A union's tree, when a value's shape says which alternative reads it: at
 * most one object and one list (`objects3D`: a model or a list of models).
 * Two objects could each be the one zod takes: no fixed list of names.
 */
function unionTree(options: readonly z.ZodType[], depth: number): FieldTree | undefined {
  let object: FieldTree | undefined
  let items: FieldTree | null = null
  for (const option of options) {
    const tree = build(option, depth + 1)
    // An object that names nothing and keeps everything (`client: string | {…}`) says nothing of its fields.
    if (!tree || (tree.keeps && tree.names?.size === 0 && tree.below === null)) continue
    if (tree.items !== null) {
      if (items !== null) return undefined
      items = tree.items
    } else if (object) return undefined
    else object = tree
  }
  if (!object) return items === null ? undefined : treeNode({items})
  return items === null ? object : {...object, items}
}

/** What a row without dropped fields has: one frozen list, so a good row allocates none. */
const NONE: readonly never[] = Object.freeze([])

/** The fields of a value its schema does not name, in the value's own order. */
export interface UnknownFields {
  /** Those a plain object drops: never sent. */
  dropped: readonly FieldPath[]
  /** Those a loose object keeps: sent as given. */
  kept: readonly FieldPath[]
}

const NO_UNKNOWN: UnknownFields = Object.freeze({dropped: NONE, kept: NONE})

/** The fields of `value` that its schema's objects would drop, and those they would keep (empty when none). */
export function unknownFields(value: unknown, tree: FieldTree | undefined): UnknownFields {
  if (!tree) return NO_UNKNOWN
  // Empty unless a walk was cut short (a getter that threw): each walk starts from the row.
  at.length = 0
  found = undefined
  collect(value, tree)
  const out = found as UnknownFields | undefined
  found = undefined
  return out ?? NO_UNKNOWN
}

/** The fields of `value` that its schema's objects would drop, in the value's own order (empty when none). */
export const droppedFields = (value: unknown, tree: FieldTree | undefined): readonly FieldPath[] =>
  unknownFields(value, tree).dropped

/** The path from the row to the value being walked: pushed and popped, copied only for a find (the walk is synchronous). */
const at: (string | number)[] = []
/** What the walk under way has found; made at its first find. */
let found: {dropped: FieldPath[]; kept: FieldPath[]} | undefined

function collect(value: unknown, tree: FieldTree): void {
  if (typeof value !== 'object' || value === null) return
  if (Array.isArray(value)) {
    if (tree.items === null) return
    for (let i = 0; i < value.length; i++) {
      at.push(i)
      collect((value as unknown[])[i], tree.items)
      at.pop()
    }
    return
  }
  const record = value as Record<string, unknown>
  const {names, below, drops, keeps} = tree
  // One for-in walk over the value's keys, in their order: it makes no array of keys.
  for (const key in record) {
    if (names !== null && !names.has(key)) {
      if ((drops || keeps) && Object.hasOwn(record, key)) {
        found ??= {dropped: [], kept: []}
        ;(drops ? found.dropped : found.kept).push([...at, key])
      }
      continue
    }
    const sub = below?.get(key)
    if (sub === undefined) continue
    const child = record[key]
    if (typeof child !== 'object' || child === null || !Object.hasOwn(record, key)) continue
    at.push(key)
    collect(child, sub)
    at.pop()
  }
}

/**
 * A copy of `value` without the fields at `paths`: the objects on the way are
 * copied, everything else is shared. `value` itself is left as it is.
 */
export function withoutFields(value: Record<string, unknown>, paths: readonly FieldPath[]): Record<string, unknown> {
  if (paths.length === 0) return value
  const copy = {...value}
  for (const path of paths) {
    let parent: Record<string | number, unknown> = copy
    let reached = true
    for (let i = 0; i < path.length - 1 && reached; i++) {
      const key = path[i]!
      const child: unknown = parent[key]
      if (typeof child !== 'object' || child === null) reached = false
      else {
        const own = (Array.isArray(child) ? [...(child as unknown[])] : {...child}) as Record<string | number, unknown>
        parent[key] = own
        parent = own
      }
    }
    if (reached && !Array.isArray(parent)) delete parent[path[path.length - 1]!]
  }
  return copy
}

/** A path as messages show it: `shippingAddress.city`, `quoteModel.0.fileName`. */
export const pathText = (path: FieldPath): string => path.join('.')
