// Fields an input names that its schema does not: found at any depth, left out of what is
// sent, and answered with the field probably meant. The property test over generated rows
// (every object given such a field) is in quick-check.test.ts.
import {describe, expect, it} from 'vitest'
import {z} from 'zod'

import {CreateDemandItem} from '../../src/schemas/demand.js'
import {droppedProblems, meantField} from '../../src/schemas/field-hints.js'
import {droppedFields, fieldTree, pathText, unknownFields, withoutFields} from '../../src/schemas/unknown-fields.js'

const row = {
  technique: '3D_PRINTING',
  emial: 'a@example.com',
  material: 'PLA',
  shippingAddress: {city: 'Lyon', cty: 'Paris'},
  jobDetails: {takenAs: 'QUOTE', takenAss: 'ORDER'},
  // quoteModel items keep fields they do not name; their `failure` does not.
  quoteModel: [{fileName: 'a.stl', mine: 1, failure: {option: 'x', optoin: 'y'}, quantitty: 2}],
}

describe('droppedFields and withoutFields', () => {
  const tree = fieldTree(CreateDemandItem)
  const paths = droppedFields(row, tree)

  it('finds what zod would drop, in the order of the row, and not what a loose object keeps', () => {
    expect(paths.map(pathText)).toEqual([
      'emial',
      'shippingAddress.cty',
      'jobDetails.takenAss',
      'quoteModel.0.failure.optoin',
    ])
  })

  it('leaves them out of a copy, as zod does, and leaves the row as it was', () => {
    const before = structuredClone(row)
    const sent = withoutFields(row, paths)
    expect(sent).toEqual(CreateDemandItem.parse(row))
    expect(sent).toEqual({
      technique: '3D_PRINTING',
      material: 'PLA',
      shippingAddress: {city: 'Lyon'},
      jobDetails: {takenAs: 'QUOTE'},
      quoteModel: [{fileName: 'a.stl', mine: 1, failure: {option: 'x'}, quantitty: 2}],
    })
    expect(row).toEqual(before)
    expect(withoutFields(row, [])).toBe(row)
  })

  it('finds what a loose object keeps, which is sent as given', () => {
    expect(unknownFields(row, tree).kept.map(pathText)).toEqual(['quoteModel.0.mine', 'quoteModel.0.quantitty'])
    expect(unknownFields({technique: 'PCB'}, tree)).toEqual({dropped: [], kept: []})
  })

  it('names the field probably meant, or none', () => {
    expect(paths.map((p) => meantField(tree, p))).toEqual([
      'email',
      'shippingAddress.city',
      'jobDetails.takenAs',
      'quoteModel.0.failure.option',
    ])
    expect(meantField(tree, ['zzzzzz'])).toBeUndefined()
    // A field a loose object keeps: only a near miss of a known one has a meaning.
    expect(meantField(tree, ['quoteModel', 0, 'quantitty'])).toBe('quoteModel.0.quantity')
    expect(meantField(tree, ['quoteModel', 0, 'mine'])).toBeUndefined()
    expect(droppedProblems(paths.slice(1, 2), tree)).toEqual([
      {path: 'shippingAddress', reason: 'unknown field cty (did you mean city?)'},
    ])
  })

  it('leaves strict objects to zod (which refuses), drops nothing from loose ones, and has no names for records', () => {
    const strict = z.strictObject({a: z.string(), b: z.object({c: z.string()}).partial()})
    expect(unknownFields({a: 'x', zz: 1, b: {c: 'y', cc: 2}}, fieldTree(strict))).toEqual({
      dropped: [['b', 'cc']],
      kept: [],
    })
    const loose = z.looseObject({a: z.string()})
    expect(unknownFields({a: 'x', zz: 1}, fieldTree(loose))).toEqual({dropped: [], kept: [['zz']]})
    expect(fieldTree(z.record(z.string(), z.unknown()))).toBeUndefined()
    expect(fieldTree(z.object({a: z.string()}).catchall(z.string()))).toBeUndefined()
    expect(droppedFields({anything: 1}, undefined)).toEqual([])
  })
})

describe('a union that takes an object or a list of them', () => {
  const Model = z.strictObject({originalname: z.string(), price: z.number()})
  const Body = z.strictObject({
    objects3D: z.union([Model, z.array(Model)]),
    note: z.union([z.string(), z.looseObject({})]),
  })
  const tree = fieldTree(Body)

  it('names the field meant inside either shape', () => {
    expect(meantField(tree, ['objects3D', 'orignalname'])).toBe('objects3D.originalname')
    expect(meantField(tree, ['objects3D', 2, 'prcie'])).toBe('objects3D.2.price')
  })

  it('finds what a plain object would drop in either shape, and nothing in an object that keeps any field', () => {
    const Plain = z.object({name: z.string()})
    const plain = fieldTree(z.object({item: z.union([Plain, z.array(Plain)]), note: Body.shape.note}))
    expect(droppedFields({item: {name: 'a', nmae: 'b'}, note: {any: 1}}, plain).map(pathText)).toEqual(['item.nmae'])
    expect(droppedFields({item: [{name: 'a'}, {nme: 'b'}]}, plain).map(pathText)).toEqual(['item.1.nme'])
  })

  it('has no fixed list of names when two objects could each be the one zod takes', () => {
    const Two = z.object({either: z.union([z.object({a: z.string()}), z.object({b: z.string()})])})
    expect(fieldTree(Two)?.below).toBeNull()
    expect(droppedFields({either: {a: 'x', c: 1}}, fieldTree(Two))).toEqual([])
  })
})
