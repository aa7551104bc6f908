// What a spreadsheet or a shell saves is read as what it is: UTF-8 with or
// without its mark, UTF-16 with its mark, another encoding when --encoding names
// it; bytes that are not text are refused with their line, never replaced.
import {mkdtempSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {csvRecords} from '../../src/cli/csv.js'
import {openRowSource} from '../../src/cli/rows.js'
import {decodeText, InputDecoder, NotTextError} from '../../src/cli/text-decode.js'
import {CreateDemandItem} from '../../src/schemas/demand.js'

const csv = 'technique,material,lastName\n3D_PRINTING,PLA,Löwe\nCNC_MACHINING,Brass,Jürgen\n'
const utf16 = (text: string, order: 'le' | 'be') => {
  const le = Buffer.from(`\uFEFF${text}`, 'utf16le')
  return order === 'le' ? le : le.swap16()
}

/** The pieces a decoder is handed, `size` bytes each (a pipe may hand them over one byte at a time). */
function decodeInPieces(bytes: Buffer, size: number, encoding?: 'windows-1252'): string {
  const decoder = new InputDecoder(encoding)
  let text = ''
  for (let i = 0; i < bytes.length; i += size) text += decoder.write(bytes.subarray(i, i + size))
  return text + decoder.end()
}

async function rowsOf(name: string, bytes: Buffer, opts: {encoding?: 'windows-1252'; delimiter?: string} = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'mfg-decode-'))
  const path = join(dir, name)
  writeFileSync(path, bytes)
  const source = openRowSource(path, {schema: CreateDemandItem, ...opts})
  const rows = []
  for await (const row of source.read()) rows.push(row.value)
  return rows
}

describe('input text', () => {
  it.each([1, 2, 3, 5, 4096])('reads UTF-8, UTF-16 LE and BE with their marks alike, in pieces of %i bytes', (size) => {
    for (const bytes of [Buffer.from(csv), Buffer.from(`\uFEFF${csv}`), utf16(csv, 'le'), utf16(csv, 'be')]) {
      expect(decodeInPieces(bytes, size)).toBe(csv)
    }
  })

  it('refuses bytes that are not UTF-8 with the line they are on, and reads them as the encoding named', () => {
    const latin1 = Buffer.from(csv, 'latin1')
    expect(() => decodeText(latin1, 'body.json')).toThrow(
      'body.json: line 2: not UTF-8 text (byte 0xF6); save it as UTF-8.',
    )
    expect(decodeInPieces(latin1, 7, 'windows-1252')).toBe(csv)
    // A file with a mark is read as the mark says, whatever --encoding names.
    expect(decodeInPieces(utf16(csv, 'le'), 7, 'windows-1252')).toBe(csv)
  })

  it('refuses UTF-16 without its mark, and a character cut off at the end', () => {
    const bare = Buffer.from(csv, 'utf16le')
    expect(() => decodeInPieces(bare, 64)).toThrow(NotTextError)
    expect(() => decodeText(bare, 'x.csv')).toThrow(/line 1: not UTF-8 text \(UTF-16 without a byte-order mark/)
    expect(() => decodeText(Buffer.from([0x61, 0x0a, 0xc3]), 'x.csv')).toThrow(
      'x.csv: line 2: not UTF-8 text (a character cut off at the end)',
    )
  })

  it('reads rows from a file in each encoding, with their names intact', async () => {
    const expected = [
      {technique: '3D_PRINTING', material: 'PLA', lastName: 'Löwe'},
      {technique: 'CNC_MACHINING', material: 'Brass', lastName: 'Jürgen'},
    ]
    expect(await rowsOf('le.csv', utf16(csv, 'le'))).toEqual(expected)
    expect(await rowsOf('be.csv', utf16(csv, 'be'))).toEqual(expected)
    expect(await rowsOf('win.csv', Buffer.from(csv, 'latin1'), {encoding: 'windows-1252'})).toEqual(expected)
    await expect(rowsOf('win.csv', Buffer.from(csv, 'latin1'))).rejects.toThrow(
      'win.csv: line 2: not UTF-8 text (byte 0xF6); save it as UTF-8 (Excel: "CSV UTF-8"), or name its encoding with --encoding',
    )
  })
})

describe('the CSV delimiter', () => {
  const records = async (text: string, size: number, delimiter?: string) => {
    async function* pieces() {
      for (let i = 0; i < text.length; i += size) yield text.slice(i, i + size)
    }
    const out = []
    for await (const batch of csvRecords(pieces(), (cells) => cells, delimiter)) out.push(...batch)
    return out
  }

  it.each([1, 4, 1000])(
    'is the header line’s: semicolons or tabs when it has more of them than commas (%i)',
    async (size) => {
      expect(await records('a;b;c\n1,5;2;"x;y"\n', size)).toEqual([
        ['a', 'b', 'c'],
        ['1,5', '2', 'x;y'],
      ])
      expect(await records('a\tb\n1\t2', size)).toEqual([
        ['a', 'b'],
        ['1', '2'],
      ])
      expect(await records('a,b;c\n1,2;3\n', size)).toEqual([
        ['a', 'b;c'],
        ['1', '2;3'],
      ])
      expect(await records('single\nvalue;x\n', size)).toEqual([['single'], ['value;x']])
    },
  )

  it('is the one given, whatever the header holds', async () => {
    expect(await records('a;b,c\n1;2,3\n', 2, ',')).toEqual([
      ['a;b', 'c'],
      ['1;2', '3'],
    ])
    expect(await records('a|b\n"1|2"|3\n', 2, '|')).toEqual([
      ['a', 'b'],
      ['1|2', '3'],
    ])
  })

  it('reads a semicolon-separated file into rows', async () => {
    const rows = await rowsOf('semi.csv', Buffer.from('technique;material;quantity\r\nCNC_MACHINING;Brass;3\r\n'))
    expect(rows).toEqual([{technique: 'CNC_MACHINING', material: 'Brass', quantity: 3}])
  })
})
