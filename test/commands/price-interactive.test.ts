import {render} from '@inquirer/testing'
import {afterAll, beforeAll, describe, expect, it, vi} from 'vitest'

import {openSeededStore} from '../../src/sandbox/index.js'
import {estimate, type Catalog} from '../../src/sandbox/pricing.js'
import {QuoteModelPublicDto} from '../../src/schemas/pricing.js'
import {buildModel} from '../../src/services/price/estimate.js'
import {measurePart} from '../../src/services/price/measure.js'
import {runCli, startCliSandbox, type CliSandbox} from '../helpers/cli.js'
import {meshPath} from '../helpers/meshes.js'

// The interactive walk of `price estimate` through its real prompts: every select and input
// that src/cli/prompt.ts opens is rendered by @inquirer/testing (the real @inquirer/prompts
// code, on virtual terminal streams), and the test answers with keystrokes after reading
// what each prompt shows. Everything else is real: the command in-process, a sandbox over HTTP.
type Rendered = Awaited<ReturnType<typeof render>>
const prompts = vi.hoisted(() => {
  const ready: unknown[] = []
  const waiting: ((p: unknown) => void)[] = []
  return {
    deliver(p: unknown) {
      const w = waiting.shift()
      if (w) w(p)
      else ready.push(p)
    },
    next(): Promise<unknown> {
      const p = ready.shift()
      return p ? Promise.resolve(p) : new Promise((resolve) => waiting.push(resolve))
    },
  }
})

vi.mock('@inquirer/prompts', async (importOriginal) => {
  const real = await importOriginal<typeof import('@inquirer/prompts')>()
  const {render: draw} = await import('@inquirer/testing')
  // The command's own context (stdin, stderr) is replaced by @inquirer/testing's streams.
  const open = (prompt: typeof real.select | typeof real.input) => (config: never) =>
    draw(prompt as never, config).then((p) => {
      prompts.deliver(p)
      return p.answer
    })
  return {...real, select: open(real.select), input: open(real.input)}
})

vi.mock('../../src/cli/path-prompt.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/cli/path-prompt.js')>()
  const {render: draw} = await import('@inquirer/testing')
  return {
    ...real,
    pathPrompt: (config: never) =>
      draw(real.pathPrompt, config).then((p) => {
        prompts.deliver(p)
        return p.answer
      }),
  }
})

const tick = () => new Promise((resolve) => setImmediate(resolve))

async function nextPrompt(message: string): Promise<Rendered> {
  const p = (await Promise.race([
    prompts.next(),
    new Promise((_, reject) => setTimeout(() => reject(new Error(`no prompt ${message} appeared`)), 10_000)),
  ])) as Rendered
  await tick()
  expect(p.getScreen().split('\n')[0]).toContain(message)
  return p
}

/** The choices a select shows, in order (the cursor line included). */
function choicesOf(p: Rendered): string[] {
  return p
    .getScreen()
    .split('\n')
    .slice(1)
    .map((l) => l.replace(/^[❯>]?\s*/, '').trim())
    .filter((l) => l !== '' && !l.includes('navigate'))
}

/** Moves the cursor down to `label` with the arrow key, then presses enter. */
async function choose(p: Rendered, label: string): Promise<void> {
  for (let i = 0; i < 20; i++) {
    const active = p
      .getScreen()
      .split('\n')
      .find((l) => /^\s*[❯>]/.test(l))
    if (active?.replace(/^\s*[❯>]\s*/, '').trim() === label) {
      p.events.keypress('enter')
      await tick()
      return
    }
    p.events.keypress('down')
    await tick()
  }
  throw new Error(`no choice ${label} in:\n${p.getScreen()}`)
}

async function typeAnswer(p: Rendered, text: string): Promise<void> {
  p.events.type(text)
  await tick()
  p.events.keypress('enter')
  await tick()
}

/** `price estimate` of an FDM part in PLA, walked to the part file prompt: colour, quantity and options take their first choice or default. */
async function untilPartFile(...more: string[]): Promise<{run: ReturnType<typeof runCli>; p: Rendered}> {
  const argv = ['price', 'estimate', '--service', '3D_PRINTING', '--technology', 'FDM', '--material', 'PLA', ...more]
  const run = runCli(argv, {env: {...sb.env(), CI: undefined}})
  let p = await nextPrompt('')
  for (let i = 0; i < 10 && !p.getScreen().includes('Part file'); i++) {
    p.events.keypress('enter')
    await tick()
    p = await nextPrompt('')
  }
  expect(p.getScreen()).toContain('Part file')
  return {run, p}
}

const LOGO = meshPath('logo.stl')
let sb: CliSandbox
let catalog: Catalog
const tty = {
  stdin: Object.getOwnPropertyDescriptor(process.stdin, 'isTTY'),
  stderr: Object.getOwnPropertyDescriptor(process.stderr, 'isTTY'),
}

beforeAll(async () => {
  sb = await startCliSandbox()
  const store = openSeededStore({memory: true})
  const business = store.businesses.all()[0]!
  catalog = {
    currency: business.currency,
    machines: store.catalog.machines(business.id),
    materials: store.catalog.materials(business.id),
    options: store.catalog.options(business.id),
  }
  store.close()
  // canPrompt() asks for a terminal on stdin and stderr (the prompts themselves draw on the test's streams).
  Object.defineProperty(process.stdin, 'isTTY', {value: true, configurable: true})
  Object.defineProperty(process.stderr, 'isTTY', {value: true, configurable: true})
})
afterAll(async () => {
  for (const [name, d] of Object.entries(tty)) {
    const stream = name === 'stdin' ? process.stdin : process.stderr
    if (d) Object.defineProperty(stream, 'isTTY', d)
    else delete (stream as {isTTY?: boolean}).isTTY
  }
  await sb.close()
})

describe('mfg price estimate, answered through the real prompts', () => {
  it('walks service, technology, material, colour, quantity, options and part, and shows the engine price', async () => {
    const run = runCli(['price', 'estimate'], {env: {...sb.env(), CI: undefined}})

    const service = await nextPrompt('Service:')
    expect(choicesOf(service)).toEqual(['3D_PRINTING', 'CNC_MACHINING', 'SHEET_METAL'])
    await choose(service, '3D_PRINTING')

    const technology = await nextPrompt('Technology:')
    expect(choicesOf(technology)).toEqual(['FDM', 'SLA', 'SLS'])
    await choose(technology, 'SLA')

    const material = await nextPrompt('Material:')
    expect(choicesOf(material)).toEqual(['Standard Resin'])
    await choose(material, 'Standard Resin')

    const colour = await nextPrompt('Colour:')
    expect(choicesOf(colour)).toEqual(['Grey', 'Clear'])
    await choose(colour, 'Clear')

    const quantity = await nextPrompt('Quantity:')
    await typeAnswer(quantity, 'x')
    expect(quantity.getScreen()).toContain('A whole number from 1')
    quantity.events.keypress('backspace')
    await typeAnswer(quantity, '3')

    const leadTime = await nextPrompt('lead time:')
    // Every option question starts with leaving it out: an option not chosen adds nothing.
    expect(choicesOf(leadTime)).toEqual([
      '(none)',
      'Standard (7 working days)',
      'Express (3 working days)',
      'Economy (12 working days)',
    ])
    await choose(leadTime, 'Express (3 working days)')
    const infill = await nextPrompt('infill:')
    await choose(infill, '20 %')
    const finishing = await nextPrompt('finishing:')
    expect(choicesOf(finishing)).toEqual(['(none)', 'Sanding', 'Painting'])
    await choose(finishing, 'Painting')

    const part = await nextPrompt('Part file')
    await typeAnswer(part, LOGO)

    const r = await run
    expect(r.exitCode, r.stderr).toBe(0)
    const shown = /^price\s+(\d+\.\d\d) EUR$/m.exec(r.stdout)
    expect(shown, r.stdout).not.toBeNull()
    expect(r.stdout).toMatch(/^quantity\s+3$/m)
    expect(r.stdout).toMatch(/^material\s+Standard Resin, Clear$/m)

    // The same choices priced by the engine itself.
    const model = buildModel({
      service: '3D_PRINTING',
      technology: 'SLA',
      material: 'Standard Resin',
      color: 'Clear',
      quantity: 3,
      options: [
        {refer: 'lead_time', name: 'Express (3 working days)'},
        {refer: 'infill', name: '20 %'},
        {refer: 'finishing', name: 'Painting'},
      ],
      part: {file: LOGO, measurement: measurePart({file: LOGO})},
    })
    const engine = estimate(catalog, QuoteModelPublicDto.parse(model), {currency: 'EUR'}).breakdown
    expect(Number(shown?.[1])).toBe(engine.price)
  })

  it('asks only for what flags leave out: the machine of a material on two, then its options', async () => {
    const run = runCli(
      ['price', 'estimate', '--part', meshPath('cube20.stl'), '--material', 'Steel S235', '--quantity', '2', '--json'],
      {env: {...sb.env(), CI: undefined}},
    )
    const technology = await nextPrompt('Technology:')
    expect(choicesOf(technology)).toEqual(['CNC', 'LASER'])
    await choose(technology, 'CNC')
    const asked: string[] = []
    for (const [message, pick] of [
      ['lead time:', 'Economy (12 working days)'],
      ['precision:', 'Fine ±0.05 mm'],
      ['finishing:', '(none)'],
    ] as const) {
      const p = await nextPrompt(message)
      asked.push(...choicesOf(p))
      await choose(p, pick)
    }
    expect(asked).toContain('High ±0.02 mm')
    const r = await run
    expect(r.exitCode, r.stderr).toBe(0)
    expect(JSON.parse(r.stdout)).toMatchObject({
      service: 'CNC_MACHINING',
      technology: 'CNC',
      quantity: 2,
      options: ['lead_time=Economy (12 working days)', 'precision=Fine ±0.05 mm'],
    })
  })

  it('the part file prompt completes paths: Tab takes the highlighted folder or file into the line', async () => {
    const {run, p} = await untilPartFile()
    p.events.type('exampl')
    p.events.keypress('tab')
    await tick()
    expect(p.getScreen().split('\n')[0]).toMatch(/examples\/$/)
    // Several candidates: the line stays, and they are listed (part files only).
    p.events.keypress('tab')
    await tick()
    expect(p.getScreen().split('\n')[0]).toMatch(/examples\/$/)
    expect(p.getScreen()).toContain('examples/bracket.stl')
    expect(p.getScreen()).toContain('examples/part.stl')
    expect(p.getScreen()).not.toContain('examples/big.ndjson')
    p.events.type('b')
    p.events.keypress('tab')
    await tick()
    expect(p.getScreen().split('\n')[0]).toMatch(/examples\/bracket\.stl$/)
    p.events.keypress('enter')
    await tick()
    const r = await run
    expect(r.exitCode, r.stderr).toBe(0)
    expect(r.stderr).toMatch(/^The same without prompts: mfg price estimate .*--part examples\/bracket\.stl/m)
  })

  it('a part file is checked before the walk goes on; skipped, it asks for the measures; the same as one command line', async () => {
    const {run, p} = await untilPartFile()
    // A path that is not there is refused at the prompt, which stays.
    await typeAnswer(p, '/nonexistent/part.stl')
    expect(p.getScreen()).toContain('no such file')
    for (let i = 0; i < '/nonexistent/part.stl'.length; i++) p.events.keypress('backspace')
    await tick()
    // So is a mesh that is not closed: it has no volume to price.
    const open = meshPath('open-box.stl')
    await typeAnswer(p, open)
    expect(p.getScreen()).toContain('the mesh is open (4 open edges)')
    for (let i = 0; i < open.length; i++) p.events.keypress('backspace')
    await tick()
    p.events.keypress('enter')
    await tick()
    // Skipped: the measures the estimate needs instead.
    await typeAnswer(await nextPrompt('Part size'), '')
    await typeAnswer(await nextPrompt('Part volume'), '')
    const weight = await nextPrompt('Printed weight, g:')
    await typeAnswer(weight, '')
    expect(weight.getScreen()).toContain('The size, the volume or the weight is needed')
    await typeAnswer(weight, '12.5')
    const r = await run
    expect(r.exitCode, r.stderr).toBe(0)
    const price = /^price\s+(\d+\.\d\d) EUR$/m.exec(r.stdout)?.[1]
    expect(price, r.stdout).toBeDefined()
    // At the end, on stderr, the command line that prices the same without a prompt.
    const line = /^The same without prompts: (mfg price estimate .*)$/m.exec(r.stderr)?.[1]
    expect(line, r.stderr).toBeDefined()
    expect(line).toContain('--weight 12.5')
    expect(line).toContain('--material PLA')
    const argv = [...line!.matchAll(/'((?:[^']|'\\'')*)'|(\S+)/g)].map((m) => m[1]?.replace(/'\\''/g, "'") ?? m[2]!)
    const again = await runCli(argv.slice(1), {env: sb.env()})
    expect(again.exitCode, again.stderr).toBe(0)
    expect(/^price\s+(\d+\.\d\d) EUR$/m.exec(again.stdout)?.[1]).toBe(price)
    expect(again.stderr).not.toContain('The same without prompts')
  })
  it('the part file prompt reads within the reader-limit flags given, and the command line keeps them', async () => {
    const {run, p} = await untilPartFile('--max-triangles', '12')
    await typeAnswer(p, LOGO)
    expect(p.getScreen()).toContain('if the file is trusted, raise the limit with --max-triangles')
    for (let i = 0; i < LOGO.length; i++) p.events.keypress('backspace')
    await tick()
    // The 12 triangles of the cube are within it.
    await typeAnswer(p, meshPath('cube20.stl'))
    const r = await run
    expect(r.exitCode, r.stderr).toBe(0)
    expect(r.stderr).toMatch(/^The same without prompts: mfg price estimate .*--max-triangles 12$/m)
  })
})
