// One mistake, one message, whichever way the rows come in: the same bad rows as
// a CSV file, a JSON array file, an NDJSON file and each of them on stdin (and
// for one field, from flags) give `demand create` the same error, word for word,
// and the same entries in the --errors file. The rows sit on the same lines in
// every format (the NDJSON file starts with an empty line where the CSV has its
// header), so even the "(line N)" parts must agree.
import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {runCli, type CliResult} from '../helpers/cli.js'
import {useTempDirs} from '../helpers/temp.js'

const tempDir = useTempDirs('mfg-messages-')

const HEADER = ['technique', 'material', 'quantity', 'isCompany', 'jobDetails.takenAs', 'draftId']
/** The rows as CSV cells; the JSON rows are the same values typed as CSV cells are converted. */
const CELLS = [
  ['3D_PRINTING', 'PLA', '2', '', '', ''],
  ['LASER_WELDING', 'PLA', '', '', '', ''],
  ['CNC_MACHINING', 'Brass', 'abc', 'maybe', '', ''],
  ['CNC_MACHINING', 'Brass', '2.5', 'no', '', ''],
  ['', 'PLA', '', '', '', ''],
  ['PCB', 'FR4', '', '', 'MAYBE', ''],
  ['SHEET_METAL', 'Steel S235', '0', '', '', 'x'.repeat(201)],
  ['3D_PRINTING', 'PETG', '1', 'yes', 'ORDER', 'own-id'],
]

function typed(cell: string, column: string): unknown {
  if (column === 'quantity' && cell.trim() !== '' && Number.isFinite(Number(cell))) return Number(cell)
  if (column === 'isCompany' && ['yes', 'no'].includes(cell)) return cell === 'yes'
  return cell
}

function jsonRow(cells: string[]): Record<string, unknown> {
  const row: Record<string, unknown> = {}
  cells.forEach((cell, i) => {
    if (cell === '') return
    const [key, inner] = HEADER[i]!.split('.') as [string, string | undefined]
    if (inner) row[key] = {[inner]: typed(cell, HEADER[i]!)}
    else row[key] = typed(cell, key)
  })
  return row
}

const csv = [HEADER, ...CELLS].map((r) => r.join(',')).join('\n') + '\n'
const jsonArray = `[\n${CELLS.map((c) => JSON.stringify(jsonRow(c))).join(',\n')}\n]\n`
const ndjson = `\n${CELLS.map((c) => JSON.stringify(jsonRow(c))).join('\n')}\n`

interface Path {
  name: string
  /** The arguments that name the input, and stdin if any. */
  input: (dir: string) => {args: string[]; stdin?: string}
}

const file = (name: string, content: string) => (dir: string) => {
  const path = join(dir, name)
  writeFileSync(path, content)
  return {args: ['--file', path]}
}
const stdin = (format: string, content: string) => () => ({args: ['--file', '-', '--format', format], stdin: content})

const PATHS: Path[] = [
  {name: 'CSV file', input: file('rows.csv', csv)},
  {name: 'JSON array file', input: file('rows.json', jsonArray)},
  {name: 'NDJSON file', input: file('rows.ndjson', ndjson)},
  {name: 'CSV on stdin', input: stdin('csv', csv)},
  {name: 'JSON array on stdin', input: stdin('json', jsonArray)},
  {name: 'NDJSON on stdin', input: stdin('ndjson', ndjson)},
]

async function create(dir: string, args: string[], input?: string): Promise<CliResult> {
  return runCli(['demand', 'create', ...args, '--dry-run'], {
    env: {MFG_HOME: join(dir, 'home')},
    ...(input === undefined ? {} : {stdin: input}),
  })
}

/** The error and the --errors file each path gives for the same rows. */
async function outcomes(extra: string[]): Promise<{name: string; error: string; errors: unknown[]}[]> {
  const dir = tempDir()
  const out = []
  for (const path of PATHS) {
    const {args, stdin: input} = path.input(dir)
    const refused = await create(dir, [...args, ...extra], input)
    expect(refused.exitCode, `${path.name}: ${refused.stderr}`).toBe(2)
    const errorsFile = join(dir, `${path.name.replaceAll(' ', '-')}.ndjson`)
    const skipped = await create(dir, [...args, ...extra, '--skip-invalid', '--errors', errorsFile], input)
    expect(skipped.exitCode, `${path.name}: ${skipped.stderr}`).toBe(0)
    const errors = readFileSync(errorsFile, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as unknown)
    out.push({name: path.name, error: refused.stderr, errors})
  }
  return out
}

describe('demand create words a mistake the same whichever way the rows come in', () => {
  it('create-quotes rows: the same listing and the same --errors entries on every path', async () => {
    const [first, ...rest] = await outcomes([])
    expect(first!.error).toContain('6 of 8 rows invalid; nothing was sent')
    for (const line of [
      'row 2 (line 3): technique: "LASER_WELDING" is not allowed (allowed: 3D_PRINTING, CNC_MACHINING, SHEET_METAL, PCB)',
      'row 3 (line 4): quantity: expected a number, got "abc"',
      'row 3 (line 4): isCompany: expected true or false, got "maybe"',
      'row 4 (line 5): quantity: expected a whole number, got 2.5',
      'row 5 (line 6): technique: a demand needs a non-empty quoteModel, or technique and material',
      'row 6 (line 7): jobDetails.takenAs: "MAYBE" is not allowed (allowed: QUOTE, ORDER)',
      'row 7 (line 8): quantity: must be at least 1',
      'row 7 (line 8): draftId: must be at most 200',
    ]) {
      expect(first!.error).toContain(line)
    }
    expect(first!.errors).toHaveLength(6)
    for (const other of rest) {
      expect(other.error, `${other.name} against ${first!.name}`).toBe(first!.error)
      expect(other.errors, `${other.name} against ${first!.name}`).toStrictEqual(first!.errors)
    }
  })

  it('legacy create-demands rows: the same listing and entries on every path', async () => {
    const [first, ...rest] = await outcomes(['--legacy'])
    expect(first!.error).toMatch(/rows invalid; nothing was sent/)
    expect(first!.error).toContain('row 3 (line 4): quantity: expected a number, got "abc"')
    for (const other of rest) {
      expect(other.error, `${other.name} against ${first!.name}`).toBe(first!.error)
      expect(other.errors, `${other.name} against ${first!.name}`).toStrictEqual(first!.errors)
    }
  })

  it('a quote from flags is refused in the words a file with the same row gets', async () => {
    const dir = tempDir()
    const draftId = 'y'.repeat(201)
    const flags = await create(dir, ['--technique', 'PCB', '--material', 'FR4', '--draft-id', draftId])
    const path = join(dir, 'one.json')
    writeFileSync(path, JSON.stringify([{technique: 'PCB', material: 'FR4', draftId}]))
    const fromFile = await create(dir, ['--file', path])
    expect(flags.exitCode).toBe(2)
    expect(flags.stderr).toContain('row 1: draftId: must be at most 200')
    expect(flags.stderr).toBe(fromFile.stderr)
  })
})
