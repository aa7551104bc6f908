import {mkdtempSync, rmSync, statSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {json, jsonLines, runCli, secretsOf, useCliSandbox} from '../helpers/cli.js'
import {startProxy} from '../helpers/proxy.js'

const {sb, outputs, run} = useCliSandbox()

describe('mfg auth status', () => {
  it('reports profile, business, base URL, masked key and both generations', async () => {
    const demo = sb.businesses[0]!
    const r = await run(['auth', 'status'])
    expect(r.exitCode, r.stderr).toBe(0)
    expect(r.stdout).toMatch(new RegExp(`Base URL:\\s+${sb.url}`))
    expect(r.stdout).toMatch(new RegExp(`Business:\\s+${demo.id}`))
    expect(r.stdout).toContain(`****${demo.apiKey.slice(-4)}`)
    expect(r.stdout).toMatch(/v1:\s+✓ ok/)
    expect(r.stdout).toMatch(/v2:\s+✓ ok/)
    const j = json<Record<string, unknown>>(await run(['auth', 'status', '--json']))
    expect(j).toMatchObject({businessId: demo.id, baseUrl: sb.url, v1: {result: 'ok'}, v2: {result: 'ok'}})
  })

  it('exits 3 for a bad key', async () => {
    const r = await run(['auth', 'status', '--json'], {env: {MFG_API_KEY: 'pk_business_notARealKey123'}})
    expect(r.exitCode).toBe(3)
    expect(json(r)).toMatchObject({v1: {result: 'invalid_credentials', status: 401, ok: false}})
    expect(r.stdout).not.toContain('notARealKey123')
  })

  it('exits 3 when the key belongs to another business (403)', async () => {
    const other = sb.businesses[1]!
    const r = await run(['auth', 'status'], {env: {MFG_API_KEY: other.apiKey, MFG_AUTH_TOKEN: undefined}})
    expect(r.exitCode).toBe(3)
    expect(r.stdout).toMatch(/v1:\s+✗ the key belongs to another business/)
    expect(r.stdout).toMatch(/not set; v2 not checked/)
  })

  it('a command refused with 401 names the key it sent, masked, where it came from and how to replace it', async () => {
    const demo = sb.businesses[0]!
    const bad = 'pk_business_notARealKey9876'
    const fromEnv = await run(['demand', 'list'], {env: {MFG_API_KEY: bad}})
    expect(fromEnv.exitCode).toBe(3)
    expect(fromEnv.stderr).toContain(
      'The service refused the API key ****9876 from MFG_API_KEY: correct or unset MFG_API_KEY. mfg auth status checks the credentials in use.',
    )

    const home = mkdtempSync(join(tmpdir(), 'mfg-refused-'))
    try {
      const stored = {MFG_HOME: home, MFG_BASE_URL: undefined, MFG_API_KEY: undefined, MFG_AUTH_TOKEN: undefined}
      const add = ['profile', 'add', 'shop', '--base-url', sb.url, '--api-key', bad, '--business-id', demo.id]
      expect((await run([...add, '--auth-token', demo.authToken, '--use'], {env: stored})).exitCode).toBe(0)
      const v1 = await run(['demand', 'list', '--json'], {env: stored})
      expect(v1.exitCode).toBe(3)
      // Under --json the hint is a field of its own: the message stays the service's.
      expect(JSON.parse(v1.stderr).error).toMatchObject({
        code: 'unauthenticated',
        message: expect.stringMatching(/^listing demands: .* → 401 Unauthorized\)$/),
        hint: 'The service refused the API key ****9876 of profile "shop": store the right API key with mfg profile add shop --api-key - (- reads it from stdin). mfg auth status checks the credentials in use.',
      })
      // A v2 request carries the token too: both are named, each with its source.
      const v2 = await run(['webhook', 'list'], {env: {...stored, MFG_AUTH_TOKEN: 'at_notARealToken5555'}})
      expect(v2.exitCode).toBe(3)
      expect(v2.stderr).toContain(
        'The service refused the API key ****9876 of profile "shop" or the auth token ****5555 from MFG_AUTH_TOKEN (over profile "shop"): correct or unset MFG_AUTH_TOKEN; store the right API key with mfg profile add shop --api-key -',
      )
      expect(v1.stderr + v2.stderr).not.toContain('notARealKey')
    } finally {
      rmSync(home, {recursive: true, force: true})
    }
  })

  it('refuses before sending a key or token with a line break inside (a whole password-manager entry pasted)', async () => {
    const demo = sb.businesses[0]!
    const token = `${demo.authToken}\nuser: ops@example.com`
    const v2 = await run(['webhook', 'list', '--json'], {env: {MFG_AUTH_TOKEN: token}})
    expect(v2.exitCode).toBe(3)
    expect(JSON.parse(v2.stderr).error).toMatchObject({
      code: 'invalid_credentials',
      message: expect.stringContaining(
        `the auth token holds a line break after its first ${demo.authToken.length} characters, which a request header cannot carry (was more than the auth token pasted?); nothing was sent.`,
      ),
    })
    const v1 = await run(['demand', 'list'], {env: {MFG_API_KEY: 'my-k€y-123'}})
    expect(v1.exitCode).toBe(3)
    expect(v1.stderr).toContain('the API key holds the character "€"')
    expect(v1.stderr + v2.stderr).not.toMatch(/Invalid character|may have been sent|ops@example/)
  })

  it('CI with MFG_BASE_URL and no MFG_BUSINESS_ID is told to set the variable, not to complete a stored profile "env"', async () => {
    const home = mkdtempSync(join(tmpdir(), 'mfg-envonly-'))
    try {
      const r = await run(['demand', 'list'], {env: {MFG_HOME: home, MFG_BUSINESS_ID: undefined}})
      expect(r.exitCode).toBe(2)
      expect(r.stderr).toContain(
        'No business id: MFG_BASE_URL is set and no profile is chosen, so the business comes from MFG_BUSINESS_ID, which is not set.',
      )
      expect(r.stderr).not.toContain('mfg profile add env')
    } finally {
      rmSync(home, {recursive: true, force: true})
    }
  })

  it('checks the embedded sandbox when no profile is configured', async () => {
    const home = mkdtempSync(join(tmpdir(), 'mfg-local-'))
    try {
      const r = await runCli(['auth', 'status', '--json'], {env: {MFG_HOME: home}})
      outputs.push(r)
      expect(r.exitCode, r.stderr).toBe(0)
      expect(json(r)).toMatchObject({profile: 'local', embedded: true, v1: {ok: true}, v2: {ok: true}})
      expect(statSync(join(home, 'sandbox', 'sandbox.db')).mode & 0o777).toBe(0o600)
      const list = await runCli(['demand', 'list', '--json', '--limit', '1'], {env: {MFG_HOME: home}})
      expect(json<unknown[]>(list)).toHaveLength(1)
    } finally {
      rmSync(home, {recursive: true, force: true})
    }
  })
})

describe('mfg api', () => {
  it('GETs a v1 list with typed query fields and {businessId}', async () => {
    const r = await run(['api', 'GET', '/api/public/v1/demand/{businessId}/all', '-f', 'pageSize=2', '-f', 'page=1'])
    expect(r.exitCode, r.stderr).toBe(0)
    const body = json<{data: unknown[]; pageSize: number}>(r)
    expect(body.pageSize).toBe(2)
    expect(body.data).toHaveLength(2)
  })

  it('POSTs -f fields as a JSON body, with typed values and nesting', async () => {
    const r = await run(
      ['api', 'POST', `/api/public/v1/demand/create-quotes/${sb.businesses[0]!.id}`, '--input', '-'],
      {stdin: JSON.stringify([{technique: 'PCB', material: 'FR4', quantity: 2}])},
    )
    expect(r.exitCode, r.stderr).toBe(0)
    const [created] = json<{_id: string; quantity: number}[]>(r)
    expect(created!.quantity).toBe(2)
    const put = await run([
      'api',
      'PUT',
      `/api/public/v1/demand/${created!._id}`,
      '-F',
      'quantity=5',
      '-f',
      'shippingAddress[city]=Lyon',
      '-F',
      'archive=false',
      // A string as written, as gh api -f sends it: a zip code is not the number 75001.
      '-f',
      'shippingAddress.zip=75001',
    ])
    expect(put.exitCode, put.stderr).toBe(0)
    expect(json(put)).toMatchObject({quantity: 5, shippingAddress: {city: 'Lyon', zip: '75001'}, archive: false})
    // -f sends a string; -F types it.
    const raw = await run(['api', 'PUT', `/api/public/v1/demand/${created!._id}`, '-f', 'quantity=6'])
    expect(raw.exitCode).toBe(1)
    expect(json(raw)).toMatchObject({statusCode: 400})
    // A number JSON cannot carry as written stays the text it was (a tracking number keeps its digits).
    const tracked = await run([
      'api',
      'PUT',
      `/api/public/v1/demand/${created!._id}`,
      '-F',
      'trackId=123456789012345678901',
    ])
    expect(tracked.exitCode, tracked.stderr).toBe(0)
    expect(json(tracked)).toMatchObject({trackId: '123456789012345678901'})
    // A list of objects, as gh api writes one: items[][key] fills the last object until a key repeats.
    const models = await run([
      'api',
      'PUT',
      `/api/public/v1/demand/${created!._id}`,
      '-f',
      'quoteModel[][fileName]=a.stl',
      '-F',
      'quoteModel[][position]=1',
      '-f',
      'quoteModel[][fileName]=b.stl',
      '-F',
      'quoteModel[][position]=2',
    ])
    expect(models.exitCode, models.stderr).toBe(0)
    expect(json<{quoteModel: unknown[]}>(models).quoteModel).toMatchObject([
      {fileName: 'a.stl', position: 1},
      {fileName: 'b.stl', position: 2},
    ])
  })

  it('builds lists with key[]=value and fills {businessId} in -F values, not in -f ones', async () => {
    const create = (...fields: string[]) =>
      run(['api', 'POST', '/api/v2/integrations_ms/webhooks', '--show-secrets', '-i', ...fields])
    const r = await create(
      '-F',
      'businessId={businessId}',
      '-f',
      'url=https://example.com/hook',
      '-f',
      'secret=s-{businessId}',
      '-f',
      'events[]=order_placed',
      '-f',
      'events[]=order_updated',
    )
    expect(r.exitCode, r.stdout + r.stderr).toBe(0)
    expect(r.stderr).toMatch(/^HTTP 201 Created$/m)
    expect(json<{data: unknown[]}>(r).data[0]).toMatchObject({
      secret: 's-{businessId}',
      events: ['order_placed', 'order_updated'],
    })
    // -f sends {businessId} as written, which is no business's id.
    const unfilled = await create(
      '-f',
      'businessId={businessId}',
      '-f',
      'url=https://example.com/h',
      '-f',
      'secret=x',
      '-f',
      'events[]=order_placed',
    )
    expect(unfilled.exitCode).toBe(1)
    expect(json(unfilled)).toMatchObject({statusCode: 403, message: expect.stringContaining('business {businessId}')})
    // key[] alone is an empty list: sent as [], which the service refuses for events.
    const empty = await create(
      '-F',
      'businessId={businessId}',
      '-f',
      'url=https://example.com/h',
      '-f',
      'secret=x',
      '-f',
      'events[]',
    )
    expect(empty.exitCode).toBe(1)
    expect(JSON.stringify(json(empty))).toMatch(/events.*at least 1/)
    // With no business id set, a -F value that uses it is refused before anything is sent.
    const none = await run(['api', 'PUT', '/api/public/v1/demand/x', '-F', 'note={businessId}'], {
      env: {MFG_BUSINESS_ID: ''},
    })
    expect(none.exitCode).toBe(2)
    expect(none.stderr).toContain('-F/--field note uses {businessId} but no business id is set')
  })

  it('sends a list in a GET query as key[] repeated, as gh api does', async () => {
    const seen: string[] = []
    const proxy = await startProxy(sb.url, (req) => void seen.push(req.url ?? ''))
    try {
      const r = await run(
        [
          'api',
          'GET',
          '/api/public/v1/demand/{businessId}/all',
          '-F',
          'pageSize=1',
          '-f',
          'tags[]=a',
          '-f',
          'tags[]=b',
          '-f',
          'none[]',
          '-f',
          'f[x]=1',
        ],
        {env: {MFG_BASE_URL: proxy.url}},
      )
      expect(r.exitCode, r.stderr).toBe(0)
      expect(json<{data: unknown[]}>(r).data).toHaveLength(1)
      expect(seen).toHaveLength(1)
      const query = new URL(seen[0]!, 'http://x').searchParams
      expect(query.getAll('tags[]')).toEqual(['a', 'b'])
      expect(query.get('f[x]')).toBe('1')
      expect(query.get('pageSize')).toBe('1')
      expect([...query.keys()].some((k) => k.startsWith('none'))).toBe(false)
    } finally {
      await proxy.close()
    }
  })

  it("takes a full URL on the profile's service, and sends nothing to any other address", async () => {
    const r = await run(['api', 'GET', `${sb.url}/api/public/v1/demand/{businessId}/all?pageSize=1`])
    expect(r.exitCode, r.stderr).toBe(0)
    expect(json<{data: unknown[]}>(r).data).toHaveLength(1)
    const seen: string[] = []
    const elsewhere = await startProxy(sb.url, (req) => void seen.push(req.url ?? ''))
    try {
      const other = await run(['api', 'GET', `${elsewhere.url}/api/public/v1/demand/{businessId}/all`])
      expect(other.exitCode).toBe(2)
      expect(other.stdout).toBe('')
      expect(other.stderr).toContain(`is not under the profile's base URL ${sb.url}`)
      expect(seen).toEqual([])
    } finally {
      await elsewhere.close()
    }
    const ftp = await run(['api', 'GET', 'ftp://example.com/api/public/v1/x'])
    expect(ftp.exitCode).toBe(2)
    expect(ftp.stderr).toContain("is not under the profile's base URL")
  })

  it('follows pages with --paginate into one array', async () => {
    const all = jsonLines(await run(['demand', 'list', '--all', '--json']))
    const r = await run(['api', 'GET', '/api/public/v1/demand/{businessId}/all', '--paginate'])
    expect(r.exitCode, r.stderr).toBe(0)
    expect(json<unknown[]>(r)).toHaveLength(all.length)
  })

  it('--jq filters the answer as gh api --jq does: strings raw, once over the merged array with --paginate', async () => {
    const list = await run(['demand', 'list', '--all', '--jq', '.orderNumber'])
    const numbers = list.stdout.trim().split('\n')
    const page = await run([
      'api',
      'GET',
      '/api/public/v1/demand/{businessId}/all',
      '-f',
      'pageSize=2',
      '--jq',
      '.data[]._id',
    ])
    expect(page.exitCode, page.stderr).toBe(0)
    expect(page.stdout).toMatch(/^[0-9a-f]{24}\n[0-9a-f]{24}\n$/)
    const all = await run([
      'api',
      'GET',
      '/api/public/v1/demand/{businessId}/all',
      '--paginate',
      '--jq',
      '.[].orderNumber',
    ])
    expect(all.exitCode, all.stderr).toBe(0)
    expect(all.stdout.trim().split('\n').sort()).toEqual(numbers.sort())
    // An error answer goes through it too, and keeps its exit code.
    const missing = await run(['api', 'GET', '/api/public/v1/demand/000000000000000000000000', '--jq', '.statusCode'])
    expect(missing.exitCode).toBe(1)
    expect(missing.stdout).toBe('404\n')
    // A compile error stops before anything is sent.
    const bad = await run(['api', 'GET', '/api/public/v1/demand/{businessId}/all', '--jq', '.[] |||', '--verbose'])
    expect(bad.exitCode).toBe(2)
    expect(bad.stderr).toMatch(/^Error: --jq: syntax error/)
    expect(bad.stderr).not.toContain('→ GET')
  })

  it('refuses --paginate on a v2 path before sending it', async () => {
    const r = await run([
      'api',
      'GET',
      '/api/v2/integrations_ms/webhooks/{businessId}',
      '--paginate',
      '--jq',
      '.',
      '--verbose',
    ])
    expect(r.exitCode).toBe(2)
    expect(r.stdout).toBe('')
    expect(r.stderr).toContain('--paginate follows the pages of v1 lists (/api/public/v1/...) only')
    expect(r.stderr).not.toContain('→ GET')
  })

  it('mcp proxy refuses --jq (its stdout is the protocol) and does not list it in its help', async () => {
    const r = await run(['mcp', 'proxy', '--jq', '.'])
    expect(r.exitCode).toBe(2)
    expect(r.stderr).toContain('--jq does not apply to mfg mcp proxy')
    const help = await run(['mcp', 'proxy', '--help'])
    expect(help.stdout).not.toContain('--jq')
  })

  it('reaches v2 with the auth token, and prints headers to stderr with --include', async () => {
    const r = await run(['api', 'GET', '/api/v2/integrations_ms/webhooks/{businessId}', '--include'])
    expect(r.exitCode, r.stderr).toBe(0)
    expect(json(r)).toMatchObject({data: expect.any(Array)})
    expect(r.stderr).toMatch(/^HTTP 200 OK$/m)
    expect(r.stderr).toMatch(/^content-type: application\/json/m)
  })

  it('prints the error body on stdout and exits non-zero for a non-2xx answer', async () => {
    const r = await run(['api', 'GET', '/api/public/v1/demand/000000000000000000000000'])
    expect(r.exitCode).toBe(1)
    expect(json(r)).toMatchObject({statusCode: 404})
    expect(r.stderr).toMatch(/404/)
    // --include shows an error answer's headers as a success's.
    const included = await run(['api', 'GET', '/api/public/v1/demand/000000000000000000000000', '-i'])
    expect(included.exitCode).toBe(1)
    expect(included.stderr).toMatch(/^HTTP 404 Not Found\ncontent-type: application\/json/m)
    const other = sb.businesses[1]!
    const bad = await run(['api', 'GET', '/api/v2/integrations_ms/webhooks/{businessId}'], {
      env: {MFG_AUTH_TOKEN: 'wrong-token-value'},
    })
    expect(bad.exitCode).toBe(3)
    expect(json(bad)).toMatchObject({statusCode: 401})
    const forbidden = await run(['api', 'GET', `/api/public/v1/demand/${sb.businesses[0]!.id}/all`], {
      env: {MFG_API_KEY: other.apiKey},
    })
    expect(forbidden.exitCode).toBe(1)
    expect(json(forbidden)).toMatchObject({statusCode: 403})
  })

  it('--paginate writes the merged array as the pages come: one item a line when piped, the same items as a whole read', async () => {
    const path = '/api/public/v1/demand/{businessId}/all'
    const streamed = await run(['api', path, '--paginate', '-F', 'pageSize=2'])
    expect(streamed.exitCode, streamed.stderr).toBe(0)
    const items = JSON.parse(streamed.stdout) as {_id: string}[]
    expect(items.length).toBeGreaterThan(4)
    expect(streamed.stdout.trimEnd().split('\n')).toHaveLength(items.length + 2)
    // --include: each page's status line and headers, as each page comes; the items as without it.
    const included = await run(['api', path, '--paginate', '-F', 'pageSize=2', '-i'])
    const pages = Math.ceil(items.length / 2)
    expect(included.stderr.match(/^HTTP 200 OK\ncontent-type: application\/json/gm)).toHaveLength(pages)
    expect(JSON.parse(included.stdout)).toEqual(items)
    const gathered = await run(['api', path, '--paginate', '-F', 'pageSize=2', '-i', '--jq', 'length'])
    expect(gathered.stdout).toBe(`${items.length}\n`)
    expect(gathered.stderr.match(/^HTTP 200 OK\ncontent-type: application\/json/gm)).toHaveLength(pages)
    // --jq reads the whole array: the same items, in the same order.
    const whole = await run(['api', path, '--paginate', '-F', 'pageSize=2', '--jq', '[.[]._id]'])
    expect(JSON.parse(whole.stdout)).toEqual(items.map((i) => i._id))
    // A refused first page prints the service's answer, as without --paginate.
    const refused = await run(['api', '/api/public/v1/demand/000000000000000000000000/all', '--paginate'])
    expect(refused.exitCode).toBe(1)
    expect(json(refused)).toMatchObject({statusCode: 403})
  })

  it('takes PATH alone as gh api does: GET, POST with a body, or -X; a METHOD that is none is refused', async () => {
    const list = await run(['api', '/api/public/v1/demand/{businessId}/all', '--jq', '.data | length'])
    expect(list.exitCode, list.stderr).toBe(0)
    expect(Number(list.stdout)).toBeGreaterThan(0)
    // A body makes it a POST; -X says otherwise.
    const estimate = await run([
      'api',
      '/api/public/v1/price-estimation/{businessId}',
      '--input',
      'examples/part.json',
      '--jq',
      '.data.price',
    ])
    expect(estimate.exitCode, estimate.stderr).toBe(0)
    expect(Number(estimate.stdout)).toBeGreaterThan(0)
    const query = await run([
      'api',
      '/api/public/v1/demand/{businessId}/all',
      '-X',
      'GET',
      '-F',
      'pageSize=2',
      '--jq',
      '.data | length',
    ])
    expect(query.stdout.trim()).toBe('2')
    const wrong = await run(['api', 'FETCH', '/api/public/v1/demand/x'])
    expect(wrong.exitCode).toBe(2)
    expect(wrong.stderr).toContain('METHOD must be one of GET, POST, PUT, DELETE, PATCH; got "FETCH"')
    const clash = await run(['api', 'GET', '/api/public/v1/demand/x', '-X', 'DELETE'])
    expect(clash.exitCode).toBe(2)
    expect(clash.stderr).toContain('-X/--method DELETE and METHOD GET disagree')
    const noPath = await run(['api', 'get'])
    expect(noPath.exitCode).toBe(2)
    expect(noPath.stderr).toContain('Missing PATH: mfg api GET /api/...')
  })

  it('rejects malformed fields and headers with exit 2', async () => {
    let r = await run(['api', 'GET', '/api/public/v1/demand/x', '-f', 'novalue'])
    expect(r.exitCode).toBe(2)
    expect(r.stderr).toContain('-f/--raw-field expects key=value (or key[] for an empty list), got "novalue"')
    // The same key through both flags is still one key given twice.
    r = await run(['api', 'PUT', '/api/public/v1/demand/x', '-f', 'q=1', '-F', 'q=2'])
    expect(r.exitCode).toBe(2)
    expect(r.stderr).toContain('q is given more than once')
    // A field given twice, or given a value and fields, is refused rather than one replacing the other.
    for (const [fields, says] of [
      [['q=1', 'q=2'], 'q is given more than once'],
      [['a=2', 'a.b=1'], 'a is given a value and fields (a.b)'],
      [['__proto__.x=1'], '"__proto__.x" is not a field name a body can carry'],
      [['a[b=1'], '"a[b" is not a field name a body can carry'],
      [['a=1', 'a[]=2'], 'a is given a value and list items (a[])'],
      [['a[]=1', 'a.b=2'], 'a is given list items and fields (a.b)'],
      [['a[][]=1'], 'a[][] is a list of lists'],
    ] as const) {
      r = await run(['api', 'PUT', '/api/public/v1/demand/x', ...fields.flatMap((f) => ['-F', f])])
      expect(r.exitCode, fields.join(' ')).toBe(2)
      expect(r.stderr).toContain(`-F/--field: ${says}`)
    }
    r = await run(['api', 'GET', '/api/public/v1/demand/x', '-H', 'nocolon'])
    expect(r.exitCode).toBe(2)
    r = await run(['api', 'FETCH', '/x'])
    expect(r.exitCode).toBe(2)
  })

  it('masks secrets in --verbose logs and never prints a full key or token', async () => {
    const r = await run(['demand', 'list', '--limit', '1', '--verbose'])
    expect(r.stderr).toMatch(/GET \/api\/public\/v1\/demand\/\w+\/all\?.* 200 \d+ms/)
    const all = outputs.map((o) => o.stdout + o.stderr).join('\n')
    for (const secret of secretsOf(sb)) expect(all).not.toContain(secret)
  })
})
