import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import type {RunningSandbox} from '../../src/sandbox/index.js'
import {boxStl} from '../../src/sandbox/seed-files.js'
import {PostsPage} from '../../src/schemas/posts.js'
import {sandboxClient, startTestSandbox, type SandboxClient} from '../helpers/sandbox.js'

let sandbox: RunningSandbox
let demo: SandboxClient
let second: SandboxClient

beforeAll(async () => {
  sandbox = await startTestSandbox()
  demo = sandboxClient(sandbox, sandbox.businesses[0])
  second = sandboxClient(sandbox, sandbox.businesses[1])
})
afterAll(async () => {
  await sandbox.close()
})

const list = (query = '', client = demo, userId = client.business.id) =>
  client.get(`/api/v2/ms-post/post/user-posts/${userId}${query}`)
const UPLOAD = '/api/v2/ms-post/post/upload'

const newPost = (extra: Record<string, unknown> = {}) => ({
  type: 'PRODUCT',
  service: '3D_PRINTING',
  price: {priceMachine: '5.00', priceConception: 1, priceExtra: 2},
  materials: [{title: 'PLA', type: 'Thermoplastic', price: 8, currency: 'EUR'}],
  ...extra,
})

async function uploadFiles(files: {name: string; bytes: Uint8Array}[], field = 'files'): Promise<Response> {
  const form = new FormData()
  for (const f of files) form.append(field, new Blob([f.bytes]), f.name)
  return fetch(sandbox.url + UPLOAD, {
    method: 'POST',
    headers: {authorization: `Bearer ${demo.business.apiKey}`, 'x-auth-token': demo.business.authToken},
    body: form,
  })
}

describe('get posts', () => {
  it('answers the first page of 5, newest first, with the pagination fields', async () => {
    const answer = await list()
    expect(answer.status, answer.text).toBe(200)
    const page = PostsPage.parse(answer.body)
    expect(page).toMatchObject({currentPage: 1, pageSize: 5, total: 12, totalPages: 3})
    expect(page.posts).toHaveLength(5)
    expect(page.posts[0]?.title).toBe('Mounting plate 100x100x3')
    expect(page.posts[0]?.createdAt).toMatch(/^\d\d\/\d\d\/\d{4}$/)
    expect(page.posts.every((p) => Array.isArray(p.models))).toBe(true)
  })

  it('pages with currentPage and pageSize (max 50); a page past the end is empty', async () => {
    const all = (await list('?pageSize=50')).body
    expect(all.posts).toHaveLength(12)
    const third = (await list('?currentPage=3&pageSize=5')).body
    expect(third.posts.map((p: {_id: string}) => p._id)).toEqual(all.posts.slice(10).map((p: {_id: string}) => p._id))
    expect((await list('?currentPage=9')).body).toMatchObject({posts: [], currentPage: 9, total: 12})
    for (const bad of ['?pageSize=51', '?pageSize=0', '?currentPage=0', '?currentPage=x']) {
      const answer = await list(bad)
      expect(answer.status, bad).toBe(400)
    }
  })

  it('filters by category, service, free, type, tags and formats', async () => {
    const titles = async (query: string) =>
      (await list(`?pageSize=50&${query}`)).body.posts.map((p: {title: string}) => p.title).sort()
    expect(await titles('category=Electronics')).toEqual([
      'Aluminium heat sink 40x40',
      'Rack panel 1U',
      'Raspberry Pi 5 case',
    ])
    expect(await titles('service=SHEET_METAL')).toEqual([
      'Mounting plate 100x100x3',
      'Rack panel 1U',
      'Wall shelf bracket',
    ])
    expect(await titles('free=true')).toEqual([])
    expect((await titles('free=false')).length).toBe(12)
    expect((await titles('type=PRODUCT')).length).toBe(12)
    expect(await titles('type=STORY')).toEqual([])
    expect(await titles('tags=desk')).toEqual(['Cable clip set (10 pcs)', 'Headphone stand'])
    expect(await titles('tags=drone,cooling')).toEqual(['Aluminium heat sink 40x40', 'Drone arm (5 inch)'])
    expect(await titles('formats=3mf')).toEqual(['Raspberry Pi 5 case'])
    expect(await titles('formats=.STEP')).toEqual(['Aluminium heat sink 40x40', 'Brass knob M6', 'Steel flange DN50'])
    expect(await titles('service=3D_PRINTING&category=Mechanics')).toEqual([
      'Cable clip set (10 pcs)',
      'Drone arm (5 inch)',
    ])
  })

  it('sorts by createdAtInc, createdAtDec, viewsDec and likesDec', async () => {
    const posts = async (sortBy: string) =>
      (await list(`?pageSize=50&sortBy=${sortBy}`)).body.posts as {_id: string; views: number; likes: number}[]
    const inc = await posts('createdAtInc')
    const dec = await posts('createdAtDec')
    expect(inc.map((p) => p._id)).toEqual([...dec].reverse().map((p) => p._id))
    const views = (await posts('viewsDec')).map((p) => p.views)
    expect(views).toEqual([...views].sort((a, b) => b - a))
    const likes = (await posts('likesDec')).map((p) => p.likes)
    expect(likes).toEqual([...likes].sort((a, b) => b - a))
  })

  it('answers 400 naming the allowed values of a bad filter', async () => {
    for (const [query, allowed] of [
      ['?sortBy=price', 'viewsDec'],
      ['?category=Toys', 'Architecture'],
      ['?service=LASER', 'SHEET_METAL'],
      ['?type=REEL', 'STORY'],
      ['?free=yes', '"true", "false"'],
    ] as const) {
      const answer = await list(query)
      expect(answer.status, query).toBe(400)
      expect(answer.body.message, query).toContain(allowed)
      expect(answer.body.details[0].path).toBe(query.slice(1).split('=')[0])
    }
  })

  it("answers 403 for another business's userId, and the second shop sees only its own (none)", async () => {
    expect((await list('', demo, second.business.id)).status).toBe(403)
    expect((await list('', second)).body).toMatchObject({posts: [], total: 0, totalPages: 0})
  })

  it('matches tags in any letter case, beyond ASCII too, and pages and counts the matches only', async () => {
    const create = (title: string, tags: string[], formats: string[]) =>
      second.post(`/api/v2/ms-post/post/${second.business.id}`, newPost({title, tags, formats}))
    for (const [title, tags] of [
      ['Filter housing', ['Öl-Filter', 'Pump']],
      ['Filter cap', ['ÖL-FILTER']],
      ['Pump gear', ['pump']],
      ['Oil can', ['öl-filter']],
    ] as const)
      expect((await create(title, [...tags], ['STL'])).status).toBe(201)
    const page = async (query: string) => (await list(`?sortBy=createdAtInc&${query}`, second)).body
    const titles = (body: {posts: {title: string}[]}) => body.posts.map((p) => p.title)
    const oil = await page('tags=%C3%96L-filter&pageSize=2&currentPage=2')
    expect(titles(oil)).toEqual(['Oil can'])
    expect(oil).toMatchObject({currentPage: 2, pageSize: 2, total: 3, totalPages: 2})
    expect(titles(await page('tags=PUMP'))).toEqual(['Filter housing', 'Pump gear'])
    expect((await page('formats=.Stl&pageSize=50')).total).toBe(4)
    expect(await page('tags=pump&currentPage=3')).toMatchObject({posts: [], total: 2, totalPages: 1})
  })
})

describe('create, upload, add model, update, delete', () => {
  let postId: string

  it('creates a product: 201 with _id and DD/MM/YYYY dates', async () => {
    const answer = await demo.post(`/api/v2/ms-post/post/${demo.business.id}`, newPost({title: 'Test bracket'}))
    expect(answer.status, answer.text).toBe(201)
    expect(answer.body).toMatchObject({
      _id: expect.stringMatching(/^[0-9a-f]{24}$/),
      user: demo.business.id,
      type: 'PRODUCT',
      service: '3D_PRINTING',
      title: 'Test bracket',
      price: {priceMachine: '5.00', priceConception: 1, priceExtra: 2},
      models: [],
      createdAt: expect.stringMatching(/^\d\d\/\d\d\/\d{4}$/),
      updatedAt: expect.stringMatching(/^\d\d\/\d\d\/\d{4}$/),
    })
    postId = answer.body._id
    const page = (await list('?sortBy=createdAtDec')).body
    expect(page.total).toBe(13)
    expect(page.posts[0]._id).toBe(postId)
  })

  it('refuses an invalid create with details, a type other than PRODUCT, and another business', async () => {
    const bad = await demo.post(`/api/v2/ms-post/post/${demo.business.id}`, {
      ...newPost(),
      service: 'LASER',
      materials: [],
    })
    expect(bad.status).toBe(400)
    expect(bad.body.details.map((d: {path: string}) => d.path).sort()).toEqual(['materials', 'service'])
    const story = await demo.post(`/api/v2/ms-post/post/${demo.business.id}`, newPost({type: 'STORY'}))
    expect(story.status).toBe(400)
    expect(story.body.message).toContain('PRODUCT')
    expect((await demo.post(`/api/v2/ms-post/post/${second.business.id}`, newPost())).status).toBe(403)
  })

  it('uploads files as multipart parts named files, streamed to the file store', async () => {
    const cube = boxStl(20, 20, 20, 'cube')
    const answer = await uploadFiles([
      {name: 'cube.stl', bytes: cube},
      {name: 'my part (v2).stl', bytes: boxStl(10, 5, 2)},
    ])
    expect(answer.status).toBe(201)
    const body = (await answer.json()) as {url: string; originalName: string}[]
    expect(body).toHaveLength(2)
    expect(body[0]).toEqual({
      url: expect.stringMatching(/^https:\/\/files\.mfg-sandbox\.test\/uploads\/[0-9a-f]{24}\/cube\.stl$/),
      originalName: 'cube.stl',
    })
    expect(body[1]?.url).toMatch(/\/my_part__v2_\.stl$/)
    expect(body[1]?.originalName).toBe('my part (v2).stl')
    // The stored bytes come back through a signed link.
    const grant = await demo.get(
      `/api/v2/ms-machine-owner/demand/access-storage?fileLink=${encodeURIComponent(body[0]?.url ?? '')}`,
    )
    expect(grant.status, grant.text).toBe(200)
    const file = await fetch(grant.body[0].url)
    expect(file.status).toBe(200)
    expect(Buffer.from(await file.arrayBuffer()).equals(cube)).toBe(true)
  })

  it('refuses an upload without files parts, and a file over 50 MiB with 413', async () => {
    const wrong = await uploadFiles([{name: 'a.stl', bytes: boxStl(1, 1, 1)}], 'file')
    expect(wrong.status).toBe(400)
    const form = new FormData()
    form.append('note', 'hello')
    const none = await fetch(sandbox.url + UPLOAD, {
      method: 'POST',
      headers: {authorization: `Bearer ${demo.business.apiKey}`, 'x-auth-token': demo.business.authToken},
      body: form,
    })
    expect(none.status).toBe(400)
    const big = await uploadFiles([{name: 'big.stl', bytes: new Uint8Array(50 * 1024 * 1024 + 1)}])
    expect(big.status).toBe(413)
    expect(((await big.json()) as {message: string}).message).toContain('50 MiB')
  })

  it('adds a model with objects3D and ?postId= (productId accepted)', async () => {
    const model = {
      price: 12,
      free: false,
      originalname: 'cube.stl',
      files: [{originalname: 'cube.stl', url: 'https://files.mfg-sandbox.test/uploads/x/cube.stl'}],
    }
    const answer = await demo.post(`${UPLOAD}?postId=${postId}`, {objects3D: model})
    expect(answer.status, answer.text).toBe(201)
    expect(Object.keys(answer.body).sort()).toEqual(['_id', 'createdAt', 'models', 'updatedAt'])
    expect(answer.body.models).toEqual([model])
    const two = {...model, originalname: 'two', files: [{originalname: 'two.obj', url: model.files[0]!.url}]}
    const again = await demo.post(`${UPLOAD}?productId=${postId}`, {objects3D: [two]})
    expect(again.body.models).toHaveLength(2)
    // Formats are the files' extensions; a model's name is no format.
    const formats = (await list('?pageSize=50&formats=obj')).body.posts.map((p: {_id: string}) => p._id)
    expect(formats).toEqual([postId])
    expect((await list('?pageSize=50&formats=two')).body.posts).toEqual([])
    const bad = await demo.post(`${UPLOAD}?postId=${postId}`, {objects3D: {...model, files: []}})
    expect(bad.status).toBe(400)
    expect(bad.body.details[0].path).toBe('objects3D.files')
  })

  it('updates by the rules: typed fields, price merged, read-only fields unchanged only', async () => {
    const answer = await demo.put(`${UPLOAD}?postId=${postId}`, {
      service: 'CNC_MACHINING',
      price: {priceMachine: 7.5},
      tags: ['bracket'],
    })
    expect(answer.status, answer.text).toBe(200)
    expect(answer.body).toMatchObject({
      service: 'CNC_MACHINING',
      price: {priceMachine: '7.50', priceConception: 1, priceExtra: 2},
      tags: ['bracket'],
      type: 'PRODUCT',
    })
    // Sending the record back as read is accepted.
    expect((await demo.put(`${UPLOAD}?postId=${postId}`, answer.body)).status).toBe(200)

    const rules: [Record<string, unknown>, string, string][] = [
      [{type: 'POST'}, 'type', 'PRODUCT'],
      [{service: 'LASER'}, 'service', 'SHEET_METAL'],
      [{price: {priceConception: '3'}}, 'price.priceConception', 'number'],
      [{price: {priceMachine: 'cheap'}}, 'price.priceMachine', 'numeric'],
      [{materials: []}, 'materials', 'at least 1'],
      [{materials: [{title: 'PLA', type: 'x', price: 1, currency: 'BTC'}]}, 'materials.0.currency', 'EUR'],
      [{views: 1000}, 'views', 'read-only'],
      [{color: 'red'}, '', 'color'],
      [{}, '', 'changes nothing'],
    ]
    for (const [body, path, words] of rules) {
      const bad = await demo.put(`${UPLOAD}?postId=${postId}`, body)
      expect(bad.status, JSON.stringify(body)).toBe(400)
      expect(bad.body.message, JSON.stringify(body)).toContain(words)
      if (path !== '') expect(bad.body.details.map((d: {path: string}) => d.path)).toContain(path)
    }
  })

  it('applies the postId rule: missing 400, unknown or another business 404', async () => {
    for (const method of ['put', 'delete'] as const) {
      const missing = method === 'put' ? await demo.put(UPLOAD, {service: 'SHEET_METAL'}) : await demo.delete(UPLOAD)
      expect(missing.status).toBe(400)
      expect(missing.body.message).toContain('postId')
    }
    expect((await demo.post(UPLOAD, {objects3D: {}})).status).toBe(400)
    expect((await demo.put(`${UPLOAD}?postId=000000000000000000000000`, {free: true})).status).toBe(404)
    expect((await second.put(`${UPLOAD}?postId=${postId}`, {free: true})).status).toBe(404)
    expect((await second.delete(`${UPLOAD}?postId=${postId}`)).status).toBe(404)
    expect((await demo.delete(`${UPLOAD}?postId=${postId}&productId=other`)).status).toBe(400)
  })

  it('deletes softly: answers the post, hides it from lists and later calls', async () => {
    const answer = await demo.delete(`${UPLOAD}?postId=${postId}`)
    expect(answer.status).toBe(200)
    expect(answer.body._id).toBe(postId)
    expect((await list()).body.total).toBe(12)
    expect((await demo.delete(`${UPLOAD}?postId=${postId}`)).status).toBe(404)
    expect((await demo.put(`${UPLOAD}?postId=${postId}`, {free: true})).status).toBe(404)
  })
})
