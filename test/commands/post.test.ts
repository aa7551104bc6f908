import {chmodSync, copyFileSync, readFileSync, statSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {
  json,
  jsonLines,
  runBuiltCli,
  runCli,
  startCliSandbox,
  type CliSandbox,
  type RunOptions,
} from '../helpers/cli.js'
import {meshPath} from '../helpers/meshes.js'

interface Post {
  _id: string
  service: string
  category?: string
  tags?: string[]
  formats?: string[]
  free?: boolean
  views?: number
  title?: string
  price: {priceMachine: string; priceConception: number; priceExtra: number}
  materials: {title: string; type: string; price: number; currency: string}[]
  models: {originalname: string; price: number; free: boolean; files: {originalname: string; url: string}[]}[]
}

let sb: CliSandbox
const run = (argv: string[], opts: RunOptions = {}) => runCli(argv, {...opts, env: {...sb.env(), ...opts.env}})
const all = async (...filters: string[]) => {
  const r = await run(['post', 'list', '--all', '--json', ...filters])
  expect(r.exitCode, r.stderr).toBe(0)
  return jsonLines<Post>(r)
}

beforeAll(async () => {
  sb = await startCliSandbox()
})
afterAll(async () => {
  await sb.close()
})

describe('mfg post list', () => {
  it('shows one page of 5 with a hint, and --all follows every page', async () => {
    const page = await run(['post', 'list'])
    expect(page.exitCode, page.stderr).toBe(0)
    const lines = page.stdout.trim().split('\n')
    expect(lines[0]).toMatch(/_id\s+title\s+service\s+price\.priceMachine\s+materials\s+models\s+createdAt/)
    expect(lines).toHaveLength(6)
    expect(page.stderr).toMatch(/Page 1 of 3 \(12 products\); --page 2 or --all/)

    const every = await all()
    expect(every).toHaveLength(12)
    expect(new Set(every.map((p) => p._id)).size).toBe(12)
    const small = await all('--page-size', '2')
    expect(small.map((p) => p._id)).toEqual(every.map((p) => p._id))

    const second = await run(['post', 'list', '--page', '3', '--json'])
    expect(json<Post[]>(second).map((p) => p._id)).toEqual(every.slice(10).map((p) => p._id))
  })

  it('passes every filter and the sort to the service', async () => {
    const every = await all()
    const service = await all('--service', 'CNC_MACHINING')
    expect(service.length).toBeGreaterThan(0)
    expect(service.length).toBe(every.filter((p) => p.service === 'CNC_MACHINING').length)

    const category = await all('--category', 'Electronics')
    expect(category.length).toBe(every.filter((p) => p.category === 'Electronics').length)
    expect(category.length).toBeGreaterThan(0)

    const tags = await all('--tags', 'desk,rc')
    expect(tags.map((p) => p._id).sort()).toEqual(
      every
        .filter((p) => p.tags?.some((t) => t === 'desk' || t === 'rc'))
        .map((p) => p._id)
        .sort(),
    )
    const formats = await all('--formats', 'step,dxf')
    expect(formats.length).toBeGreaterThan(0)
    expect(formats.every((p) => p.formats?.some((f) => f === 'step' || f === 'dxf'))).toBe(true)

    expect(await all('--type', 'PRODUCT')).toHaveLength(12)
    expect(await all('--type', 'STORY')).toHaveLength(0)
    expect(await all('--free')).toHaveLength(0)
    expect(await all('--no-free')).toHaveLength(12)

    const views = await all('--sort-by', 'viewsDec')
    const counts = views.map((p) => p.views ?? 0)
    expect(counts).toEqual([...counts].sort((a, b) => b - a))
    const oldest = await all('--sort-by', 'createdAtInc')
    expect(oldest.map((p) => p._id)).toEqual([...every.map((p) => p._id)].reverse())
    // --sort names the service's orders by field (the old --sort-by spelling stays, hidden).
    expect(await all('--sort', '-views')).toEqual(views)
    expect(await all('--sort', 'createdAt')).toEqual(oldest)
    // Any other field: every page fetched and sorted by the CLI, said on stderr.
    const byTitle = await run([
      'post',
      'list',
      '--sort',
      'title',
      '--page-size',
      '5',
      '--limit',
      '3',
      '--columns',
      'title',
      '--csv',
    ])
    expect(byTitle.exitCode, byTitle.stderr).toBe(0)
    expect(byTitle.stderr).toMatch(/every page is fetched/)
    const titles = every.map((p) => p.title ?? '').sort((a, b) => a.localeCompare(b, undefined, {numeric: true}))
    expect(byTitle.stdout.trim().split(/\r?\n/).slice(1)).toEqual(titles.slice(0, 3))

    const bad = await run(['post', 'list', '--service', 'WELDING'])
    expect(bad.exitCode).toBe(2)
  })
})

describe('mfg post create, upload, add-model, update, delete', () => {
  it('creates from flags, uploads a real STL, adds it as a model, updates and deletes', async () => {
    const created = await run([
      'post',
      'create',
      '--service',
      '3D_PRINTING',
      '--price-machine',
      '12.5',
      '--price-extra',
      '2',
      '--material',
      'PLA:plastic:25:eur',
      '--material',
      'PETG:plastic:30:EUR',
      '--title',
      'Test bracket',
      '--tags',
      'bracket,test',
      '--json',
    ])
    expect(created.exitCode, created.stderr).toBe(0)
    const post = json<Post>(created)
    expect(post.price).toEqual({priceMachine: '12.50', priceConception: 0, priceExtra: 2})
    expect(post.materials.map((m) => [m.title, m.currency])).toEqual([
      ['PLA', 'EUR'],
      ['PETG', 'EUR'],
    ])
    expect((await all()).map((p) => p._id)).toContain(post._id)

    const stl = meshPath('cube20.stl')
    const uploaded = await run(['post', 'upload', stl, '--json'])
    expect(uploaded.exitCode, uploaded.stderr).toBe(0)
    const files = json<{url: string; originalName: string}[]>(uploaded)
    expect(files).toEqual([{url: expect.stringMatching(/\/uploads\/.+\/cube20\.stl$/), originalName: 'cube20.stl'}])

    const added = await run([
      'post',
      'add-model',
      post._id,
      '--name',
      'cube',
      '--price',
      '3',
      '--file-url',
      files[0]!.url,
      '--json',
    ])
    expect(added.exitCode, added.stderr).toBe(0)
    expect(json<{models: Post['models']}>(added).models).toEqual([
      {price: 3, free: false, originalname: 'cube', files: [{originalname: 'cube20.stl', url: files[0]!.url}]},
    ])
    // Its formats are its files' extensions; the model's name (no extension) is none.
    expect((await all()).find((p) => p._id === post._id)!.formats).toEqual(['stl'])

    // The upload is stored byte for byte: a signed link to it serves the same bytes.
    const link = await run(['file', 'link', '--file-link', files[0]!.url, '--json'])
    expect(link.exitCode, link.stderr).toBe(0)
    const served = Buffer.from(await (await fetch(json<{url: string}>(link).url)).arrayBuffer())
    expect(served.equals(readFileSync(stl))).toBe(true)
    expect(served.length).toBe(statSync(stl).size)

    const updated = await run([
      'post',
      'update',
      post._id,
      '--service',
      'CNC_MACHINING',
      '--price-machine',
      '20',
      '--json',
    ])
    expect(updated.exitCode, updated.stderr).toBe(0)
    const after = json<Post>(updated)
    expect(after.service).toBe('CNC_MACHINING')
    expect(after.price).toEqual({priceMachine: '20.00', priceConception: 0, priceExtra: 2})
    expect(after.models).toHaveLength(1)

    const body = join(sb.home, 'update.json')
    writeFileSync(body, JSON.stringify({title: 'From a file', tags: ['x']}))
    const fromFile = await run(['post', 'update', post._id, '--file', body, '--json'])
    expect(fromFile.exitCode, fromFile.stderr).toBe(0)
    expect(json<Post>(fromFile)).toMatchObject({title: 'From a file', tags: ['x'], service: 'CNC_MACHINING'})

    const refused = await run(['post', 'update', post._id, '--file', '-'], {stdin: '{"type": "STORY"}'})
    expect(refused.exitCode).not.toBe(0)
    expect(refused.stderr).toMatch(/type/)

    const nothing = await run(['post', 'update', post._id])
    expect(nothing.exitCode).toBe(2)

    const unconfirmed = await run(['post', 'delete', post._id])
    expect(unconfirmed.exitCode).toBe(2)
    expect(unconfirmed.stderr).toMatch(/--yes/)
    expect((await all()).map((p) => p._id)).toContain(post._id)

    const deleted = await run(['post', 'delete', post._id, '--yes', '--json'])
    expect(deleted.exitCode, deleted.stderr).toBe(0)
    expect(json<Post>(deleted)._id).toBe(post._id)
    expect((await all()).map((p) => p._id)).not.toContain(post._id)
    const again = await run(['post', 'update', post._id, '--title', 'gone'])
    expect(again.exitCode).toBe(1)
    expect(again.stderr).toMatch(/404|not found/i)
  })

  it('creates from a --file with the interface fields, and refuses bad input before sending', async () => {
    const path = join(sb.home, 'product.json')
    writeFileSync(
      path,
      JSON.stringify({
        service: 'SHEET_METAL',
        price: {priceMachine: '7', priceConception: 1, priceExtra: 0.5},
        materials: [{title: 'Steel S235', type: 'metal', price: 40, currency: 'EUR'}],
        category: 'Mechanics',
        formats: ['dxf'],
      }),
    )
    const r = await run(['post', 'create', '--file', path, '--price-conception', '4', '--json'])
    expect(r.exitCode, r.stderr).toBe(0)
    expect(json<Post>(r)).toMatchObject({
      service: 'SHEET_METAL',
      category: 'Mechanics',
      price: {priceMachine: '7.00', priceConception: 4, priceExtra: 0.5},
    })

    const before = (await all()).length
    const noMaterial = await run(['post', 'create', '--service', '3D_PRINTING', '--price-machine', '3'])
    expect(noMaterial.exitCode).toBe(2)
    expect(noMaterial.stderr).toMatch(/materials/)
    const badMaterial = await run([
      'post',
      'create',
      '--service',
      '3D_PRINTING',
      '--price-machine',
      '3',
      '--material',
      'PLA:25',
    ])
    expect(badMaterial.exitCode).toBe(2)
    expect(badMaterial.stderr).toMatch(/title:type:price:currency/)

    // Misspelt fields in a file: each named with the field it probably is, and what each missing one takes.
    const typo = join(sb.home, 'typo.json')
    writeFileSync(typo, JSON.stringify({servce: 'CNC_MACHINING', price: {priceMachin: 3}, materials: []}))
    const misspelt = await run(['post', 'create', '--file', typo])
    expect(misspelt.exitCode).toBe(2)
    for (const line of [
      '  - (body): unknown field servce (did you mean service?)',
      '  - price: unknown field priceMachin (did you mean priceMachine?)',
      '  - service: is required (allowed: 3D_PRINTING, CNC_MACHINING, SHEET_METAL)',
      '  - price.priceMachine: is required (a number or a string)',
      '  - materials: must have at least 1 item',
    ]) {
      expect(misspelt.stderr).toContain(line)
    }
    expect(misspelt.stderr).not.toMatch(/Invalid input/)
    const wrongType = await run(['post', 'create', '--file', '-', '--json'], {
      stdin: JSON.stringify({service: 'CNC_MACHINING', price: {priceMachine: true}, materials: [{}]}),
    })
    expect(wrongType.exitCode).toBe(2)
    const {error} = JSON.parse(wrongType.stderr) as {error: {details: {path: string; message: string}[]}}
    expect(error.details).toContainEqual({
      path: 'price.priceMachine',
      message: 'expected a number or a string, got true',
    })
    expect(error.details).toContainEqual({path: 'materials.0.title', message: 'is required (a string)'})
    expect((await all()).length).toBe(before)
  })

  it('adds models from a --file, and refuses a missing upload file', async () => {
    const [first] = await all()
    const path = join(sb.home, 'models.json')
    const url = 'https://files.mfg-sandbox.test/seed/products/cable-clip.stl'
    writeFileSync(
      path,
      JSON.stringify({
        objects3D: [{price: 1, free: true, originalname: 'clip', files: [{originalname: 'clip.stl', url}]}],
      }),
    )
    const r = await run(['post', 'add-model', first!._id, '--file', path, '--json'])
    expect(r.exitCode, r.stderr).toBe(0)
    expect(json<{models: Post['models']}>(r).models.at(-1)).toMatchObject({originalname: 'clip', free: true})

    // One model where a model or a list of them is allowed: its own problems, not the union's "invalid input".
    writeFileSync(
      path,
      JSON.stringify({objects3D: {price: 1, free: true, orignalname: 'clip', files: [{originalname: 'c.stl', url}]}}),
    )
    const misspelt = await run(['post', 'add-model', first!._id, '--file', path])
    expect(misspelt.exitCode).toBe(2)
    expect(misspelt.stderr).toContain('  - objects3D: unknown field orignalname (did you mean originalname?)')
    expect(misspelt.stderr).toContain('  - objects3D.originalname: is required (a string)')

    // A local file where a URL goes: named as adding models, the problem once; from the flag, what to do.
    writeFileSync(
      path,
      JSON.stringify({price: 1, free: true, originalname: 'c', files: [{originalname: 'c.stl', url: 'm/c.stl'}]}),
    )
    const local = await run(['post', 'add-model', first!._id, '--file', path])
    expect(local.exitCode).toBe(2)
    expect(local.stderr.trim().split('\n')).toEqual([
      `Error: adding models to the product: the add-model body is invalid (1 problem); nothing was sent (POST /api/v2/ms-post/post/upload?postId=${first!._id})`,
      '  - objects3D.files.0.url: must be an http(s) URL',
    ])
    const flag = await run(['post', 'add-model', first!._id, '--file-url', 'm/cube20.stl'])
    expect(flag.exitCode).toBe(2)
    expect(flag.stderr.trim()).toBe(
      'Error: --file-url m/cube20.stl is not an http(s) URL. A file on this machine is uploaded first: mfg post upload m/cube20.stl prints the URL to give here.',
    )

    const missing = await run(['post', 'upload', join(sb.home, 'nope.stl')])
    expect(missing.exitCode).toBe(2)
    expect(missing.stderr).toMatch(/no such file/)
  })
  it('refuses a file it may not read before anything is sent, naming it and why (the built CLI)', async () => {
    const ok = join(sb.home, 'ok.stl')
    const secret = join(sb.home, 'secret.stl')
    copyFileSync(meshPath('cube20.stl'), ok)
    copyFileSync(meshPath('cube20.stl'), secret)
    chmodSync(secret, 0o000)
    for (const asJson of [[], ['--json']]) {
      const r = await runBuiltCli(['post', 'upload', ok, secret, ...asJson], {env: sb.env(), unprivileged: true})
      expect(r.exitCode, r.stderr).toBe(2)
      expect(r.stdout).toBe('')
      expect(r.stderr).toContain(`Cannot read ${secret}: permission denied. Nothing was uploaded.`)
      expect(r.stderr).not.toMatch(/DOMException|\n\s+at /)
    }
  })

  it('takes back a post as post list --json prints it, edited, leaving out the fields the service sets', async () => {
    const listed = (await all()).at(-1)! as Post & Record<string, unknown>
    const path = join(sb.home, 'edited-post.json')
    writeFileSync(path, JSON.stringify({...listed, title: 'Edited from the list', tags: ['edited']}))
    const r = await run(['post', 'update', listed._id, '--file', path])
    expect(r.exitCode, r.stderr).toBe(0)
    expect(r.stderr).toContain(
      'Left out the fields the service sets: _id, user, type, views, likes, createdAt, updatedAt.',
    )
    expect(r.stdout).toContain('Edited from the list')
    const updated = (await all()).find((p) => p._id === listed._id)! as Post & Record<string, unknown>
    expect(updated).toMatchObject({_id: listed._id, title: 'Edited from the list', tags: ['edited']})
    expect(updated.views).toBe(listed.views)
    expect(updated.createdAt).toBe(listed.createdAt)

    // Another product's file, or a type other than PRODUCT: refused, naming the field, nothing sent.
    const other = (await all()).find((p) => p._id !== listed._id)!
    const wrongId = await run(['post', 'update', other._id, '--file', path])
    expect(wrongId.exitCode).toBe(2)
    expect(wrongId.stderr).toContain(`_id: the file is product "${listed._id}", not "${other._id}"`)
    writeFileSync(path, JSON.stringify({...listed, type: 'SERVICE'}))
    const wrongType = await run(['post', 'update', listed._id, '--file', path])
    expect(wrongType.exitCode).toBe(2)
    expect(wrongType.stderr).toContain('type: a product\'s type is always "PRODUCT", got "SERVICE".')
    const after = await all()
    expect(after.find((p) => p._id === other._id)!.title).toBe(other.title)
    expect(after.find((p) => p._id === listed._id)!.title).toBe('Edited from the list')
  })
  it('copies a post as post list --json prints it into a new product', async () => {
    const listed = (await all())[0]! as Post & Record<string, unknown>
    const r = await run(['post', 'create', '--file', '-', '--json'], {
      stdin: JSON.stringify({...listed, title: 'A copy'}),
    })
    expect(r.exitCode, r.stderr).toBe(0)
    const copy = json<Post & Record<string, unknown>>(r)
    expect(copy._id).not.toBe(listed._id)
    expect(copy).toMatchObject({title: 'A copy', service: listed.service, price: listed.price, views: 0})
    expect(copy.materials).toEqual(listed.materials)
    const table = await run(['post', 'create', '--file', '-'], {stdin: JSON.stringify(listed)})
    expect(table.exitCode, table.stderr).toBe(0)
    expect(table.stderr).toContain(
      'Left out the fields the service sets: _id, user, views, likes, createdAt, updatedAt.',
    )
  })
})
