import type * as z from 'zod'

import {closest} from '../util/closest.js'
import {issueProblem, userIssues} from './issue-reason.js'
// Types only: a runtime import would give unknown-fields.ts a chunk of its own, apart from validate.ts.
import type {FieldPath, FieldTree} from './unknown-fields.js'

/**
 * The field a user probably meant by one the schema does not name, for the
 * messages about unknown fields. Loaded when there is such a field: most
 * inputs have none.
 */

/**
 * The name probably meant by an unknown field: a name of the same object
 * within a few edits (`emial` → `email`, `shippingAddress.cty` → `city`);
 * undefined when none is close.
 */
function meantName(tree: FieldTree | undefined, path: FieldPath): string | undefined {
  let place = tree
  for (const key of path.slice(0, -1)) {
    if (!place) return undefined
    place = (typeof key === 'number' ? place.items : place.below?.get(key)) ?? undefined
  }
  const last = path[path.length - 1]
  if (!place?.names || typeof last !== 'string') return undefined
  return closest(last, place.names, 1)[0]
}

/** The field probably meant by an unknown one, as a whole path (`shippingAddress.city`); undefined when none is close. */
export function meantField(tree: FieldTree | undefined, path: FieldPath): string | undefined {
  const name = meantName(tree, path)
  return name === undefined ? undefined : [...path.slice(0, -1), name].join('.')
}

/** `unknown field cty (did you mean city?)` for the field at `path`. */
function unknownField(tree: FieldTree | undefined, path: FieldPath): string {
  const meant = meantName(tree, path)
  const last = String(path[path.length - 1])
  return meant === undefined ? `unknown field ${last}` : `unknown field ${last} (did you mean ${meant}?)`
}

/** A problem with a field: where (a dotted path; "" for the whole input) and why. */
interface Problem {
  path: string
  reason: string
}

/** Fields the schema would drop, as problems of the object holding each, worded as zod's refusal of a strict one. */
export function droppedProblems(paths: readonly FieldPath[], tree: FieldTree | undefined): Problem[] {
  return paths.map((path) => ({path: path.slice(0, -1).join('.'), reason: unknownField(tree, path)}))
}

/**
 * A zod error's problems, one per issue as a user reads them (userIssues),
 * each worded by issueProblem, except that a strict object's unknown fields are
 * one problem each, with the field probably meant.
 */
export function hintedProblems(error: z.ZodError, tree: FieldTree | undefined): Problem[] {
  return userIssues(error).flatMap((issue) => {
    if (issue.code !== 'unrecognized_keys') return [issueProblem(issue)]
    const at = issue.path as FieldPath
    return issue.keys.map((key) => ({path: at.join('.'), reason: unknownField(tree, [...at, key])}))
  })
}
