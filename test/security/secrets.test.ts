// Every command, run with --verbose --debug, with and without --json, with the
// right credentials, a wrong key and a wrong auth token: stdout, stderr and the
// error JSON never show an API key, an auth token, a webhook secret or a link
// signature in clear (the masked form, **** and the last 4 characters, is fine).
// The list of commands comes from src/commands, so a new command fails the
// coverage test until it has a row here.
import {randomBytes} from 'node:crypto'
import {mkdtempSync, readdirSync, rmSync, statSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join, relative, resolve} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {runCli, secretsOf, startCliSandbox, type CliResult, type CliSandbox} from '../helpers/cli.js'
import {sandboxClient, type SandboxClient} from '../helpers/sandbox.js'
import {spawnMfg} from './spawn.js'
import {meshPath} from '../helpers/meshes.js'

const root = resolve(import.meta.dirname, '../..')
const CUBE = meshPath('cube20.stl')

/** Command ids as oclif names them, from the files under src/commands. */
function commandIds(): string[] {
  const dir = join(root, 'src/commands')
  const ids: string[] = []
  const walk = (d: string): void => {
    for (const name of readdirSync(d)) {
      const path = join(d, name)
      if (statSync(path).isDirectory()) walk(path)
      else if (name.endsWith('.ts')) {
        const parts = relative(dir, path).replace(/\.ts$/, '').split('/')
        if (parts.at(-1) === 'index') parts.pop()
        ids.push(parts.join(':'))
      }
    }
  }
  walk(dir)
  return ids.sort()
}

// ------------------------------------------------------------------ secrets

/** A random string: no two secrets of the scan share a fragment. */
const rnd = () => randomBytes(18).toString('base64url')
const WRONG_KEY = `pk_business_${rnd()}`
const WRONG_TOKEN = `at_${rnd()}`
/** Set through the API, so the test knows it from the service side, not from CLI output. */
const API_HOOK_SECRET = `whsec_${rnd()}`
/** Given to `webhook create` (MFG_WEBHOOK_SECRET), `webhook update --secret`, `webhook listen --secret`. */
const CLI_HOOK_SECRET = `whsec_${rnd()}`
const ROTATED_SECRET = `whsec_${rnd()}`
const LISTEN_SECRET = `whsec_${rnd()}`

/** label → value; labels, never values, appear in failure messages. */
const secrets = new Map<string, string>()
/** A secret's random part in windows, so a truncated or split copy is caught too. */
function fragments(value: string): string[] {
  const core = value.replace(/^(pk_business_|at_|whsec_)/, '')
  const size = Math.min(10, core.length)
  const out = new Set<string>([value])
  for (let i = 0; i + size <= core.length; i++) out.add(core.slice(i, i + size))
  return [...out]
}

/** Shapes of secrets, whoever they belong to. */
const PATTERNS: [string, RegExp][] = [
  ['an API key', /pk_business_[A-Za-z0-9_-]{8,}/],
  ['a link signature', /signature=[0-9a-fA-F]{8,}/],
  ['a 64-digit hex value (a link signature or an HMAC)', /(?<![0-9a-fA-F])[0-9a-fA-F]{64}(?![0-9a-fA-F])/],
]

interface Exemption {
  /** Link signatures may appear on stdout: the command's output is the signed link, asked for. */
  signedLinkOnStdout?: string
  /** These keys may appear on stdout: the command prints its own sandbox's credentials, asked for. */
  ownKeysOnStdout?: string
  /** `"sha256"` and `"digest"` fields of 64 hex digits may appear on stdout: content hashes, not secrets. */
  contentHashesOnStdout?: string
}

interface Run extends CliResult {
  label: string
  exempt?: Exemption
}

function leaksIn(run: Run): string[] {
  const found: string[] = []
  const streams: [string, string][] = [
    ['stdout', run.stdout],
    ['stderr', run.stderr],
  ]
  for (const [stream, text] of streams) {
    for (const [label, value] of secrets) {
      if (stream === 'stdout' && run.exempt?.signedLinkOnStdout && label.startsWith('link signature')) continue
      if (stream === 'stdout' && run.exempt?.ownKeysOnStdout && label.startsWith('served sandbox')) continue
      if (fragments(value).some((f) => text.includes(f))) found.push(`${run.label}: ${label} on ${stream}`)
    }
    for (const [label, pattern] of PATTERNS) {
      if (stream === 'stdout' && run.exempt?.signedLinkOnStdout && label !== 'an API key') continue
      if (stream === 'stdout' && run.exempt?.ownKeysOnStdout && label === 'an API key') continue
      const hashes = stream === 'stdout' && run.exempt?.contentHashesOnStdout
      const m = pattern.exec(hashes ? text.replace(/"(sha256|digest)":\s*"[0-9a-f]{64}"/g, '"$1":""') : text)
      if (m) found.push(`${run.label}: ${label} on ${stream} (…${m[0].slice(-6)})`)
    }
  }
  return found
}

// ------------------------------------------------------------------ commands

interface Ctx {
  sb: CliSandbox
  api: SandboxClient
  /** A fresh quote of the demo business (quote_sent). */
  newDemand(): Promise<string>
  /** A seeded demand with a file in the demo business's store. */
  demandWithFile: string
  /** A seeded quote (quote_sent) with a part file, which demand quote prices. */
  quotableDemand: string
  storedFileLink: string
  newPost(): Promise<string>
  product: string
  apiHook: string
  tmp: string
}

type Variant = 'right' | 'wrong key' | 'wrong token'

interface Spec {
  /** argv after the command id's words (flags --verbose --debug [--json] are added). */
  args: (c: Ctx, v: Variant) => string[] | Promise<string[]>
  /** Exit code with the right credentials; default 0. */
  ok?: number
  /** Exit codes with a wrong key / wrong token (default: 0 for local commands). */
  wrongKey?: number
  wrongToken?: number
  env?: (c: Ctx, v: Variant) => Record<string, string> | Promise<Record<string, string>>
  stdin?: string
  exempt?: (flags: string[]) => Exemption | undefined
  /** Commands that serve or read stdin until it closes run as a process; the reason. */
  spawned?: string
  /** Commands without --verbose and --debug (they send nothing to log); the reason. */
  noLogFlags?: string
}

const V1 = {wrongKey: 3, wrongToken: 0}
let quotes = 0
const V2 = {wrongKey: 3, wrongToken: 3}
const LOCAL = {wrongKey: 0, wrongToken: 0}
const MCP = {wrongKey: 3, wrongToken: 0}

/** Another MFG_HOME holding one profile, for the profile commands (so they never touch the main one). */
async function profileHome(c: Ctx, name: string): Promise<Record<string, string>> {
  const home = mkdtempSync(join(c.tmp, 'profiles-'))
  const a = c.sb.businesses[0]!
  const added = await runCli(
    [
      'profile',
      'add',
      name,
      '--base-url',
      c.sb.url,
      '--api-key',
      a.apiKey,
      '--auth-token',
      a.authToken,
      '--business-id',
      a.id,
    ],
    {env: {MFG_HOME: home}},
  )
  record({...added, label: `profile add ${name} (setup)`})
  expect(added.exitCode, added.stderr).toBe(0)
  return {MFG_HOME: home}
}

const COMMANDS: Record<string, Spec> = {
  api: {
    ...V2,
    args: () => ['GET', '/api/v2/integrations_ms/webhooks/{businessId}', '--include'],
  },
  'auth:status': {...V2, args: () => []},
  doctor: {
    // Checks the MFG_BASE_URL profile against the service: a refused key is a failed check (exit 1).
    wrongKey: 1,
    wrongToken: 1,
    args: () => ['--timeout', '10'],
  },
  // A new quote each run (the same quote the same day is answered from the journal, without asking the service).
  'demand:create': {
    ...V1,
    args: () => ['--technique', '3D_PRINTING', '--material', 'PLA', '--email', `c${++quotes}@example.com`],
  },
  'demand:delete': {...V2, args: async (c) => [await c.newDemand(), '--yes']},
  'demand:get': {...V1, args: async (c) => [await c.newDemand()]},
  'demand:list': {...V1, args: () => ['--limit', '3']},
  'demand:order': {...V2, args: (c) => ['--product', c.product, '--referral', 'api', '--quantity', '1']},
  // The part file's signed link is fetched, measured and priced; nothing is written.
  'demand:quote': {
    ...V1,
    args: (c) => [c.quotableDemand, '--dry-run'],
    exempt: () => ({contentHashesOnStdout: "--json names each part file's sha256 and the quote's digest"}),
  },
  'demand:stage': {...V1, args: async (c) => [await c.newDemand(), 'special_verified']},
  'demand:track': {...V1, args: async (c) => [await c.newDemand()]},
  'demand:update': {...V1, args: async (c) => [await c.newDemand(), '--color', 'Red']},
  // One poll of the v1 list (a webhook receiver would need the v2 token and a long run).
  'demand:watch': {...V1, args: () => ['--once', '--no-webhook']},
  // Help pages name the environment variables, never their values.
  help: {...LOCAL, args: () => ['environment'], noLogFlags: 'help prints pages and contacts nothing'},
  'file:download': {...V1, args: (c) => [c.demandWithFile, '--out', mkdtempSync(join(c.tmp, 'dl-')), '--force']},
  'file:link': {
    ...V1,
    args: (c) => [c.demandWithFile, '--show-url'],
    // The signed link is what was asked for (--show-url, or --json, which documents it): stdout only.
    exempt: () => ({signedLinkOnStdout: 'file link prints the link it was asked for'}),
  },
  'mcp:call': {...MCP, args: async (c) => ['get_quote', '--arg', `quoteId=${await c.newDemand()}`]},
  'mcp:config': {...LOCAL, args: () => ['--client', 'claude']},
  'mcp:proxy': {
    ...MCP,
    // A JSON-RPC error answer is still a clean exit: the proxy ends when stdin closes.
    wrongKey: 0,
    spawned: 'a stdio server: it reads stdin until it closes, which runCli cannot provide in-process',
    args: () => [],
  },
  'mcp:tools': {...MCP, args: () => []},
  'post:add-model': {
    ...V2,
    args: async (c) => [await c.newPost(), '--name', 'bracket', '--price', '3', '--file-url', c.storedFileLink],
  },
  'post:create': {
    ...V2,
    args: () => ['--service', '3D_PRINTING', '--price-machine', '2', '--material', 'PLA:plastic:25:EUR'],
  },
  'post:delete': {...V2, args: async (c) => [await c.newPost(), '--yes']},
  'post:list': {...V2, args: () => ['--page-size', '2']},
  'post:update': {...V2, args: async (c) => [await c.newPost(), '--service', 'CNC_MACHINING']},
  'post:upload': {...V2, args: () => [CUBE]},
  'price:estimate': {...V1, args: () => ['--part', CUBE, '--material', 'PLA']},
  'price:machines': {...MCP, args: () => []},
  'price:measure': {...LOCAL, args: () => [CUBE]},
  'profile:add': {
    ...LOCAL,
    args: (c) => {
      const a = c.sb.businesses[0]!
      return ['shop', '--base-url', c.sb.url, '--api-key', a.apiKey, '--auth-token', a.authToken, '--business-id', a.id]
    },
    env: (c) => ({MFG_HOME: mkdtempSync(join(c.tmp, 'profiles-'))}),
  },
  'profile:list': {...LOCAL, args: () => [], env: () => ({})},
  'profile:remove': {...LOCAL, args: () => ['gone', '--yes'], env: () => ({})},
  'profile:show': {...LOCAL, args: () => ['shown'], env: () => ({})},
  'profile:use': {...LOCAL, args: () => ['used'], env: () => ({})},
  'sandbox:reset': {...LOCAL, args: () => ['--yes'], env: (c) => ({MFG_HOME: mkdtempSync(join(c.tmp, 'reset-'))})},
  'sandbox:serve': {
    ...LOCAL,
    spawned: 'a server: it runs until SIGINT, which would stop the test process too',
    args: () => [],
  },
  // Names the profile and base URL in use; its key and token only masked.
  version: {...LOCAL, args: () => []},
  'webhook:create': {
    ...V2,
    args: () => ['--url', 'http://127.0.0.1:9/hook', '--events', 'order_placed', '--use-secret'],
    env: () => ({MFG_WEBHOOK_SECRET: CLI_HOOK_SECRET}),
  },
  'webhook:deliveries': {...V2, args: (c) => [c.apiHook]},
  'webhook:list': {...V2, args: () => []},
  'webhook:listen': {
    ...LOCAL,
    spawned: 'a server: it runs until SIGINT, which would stop the test process too',
    args: () => [],
  },
  'webhook:trigger': {...V2, args: () => ['order_placed']},
  'webhook:update': {...V2, args: (c) => [c.apiHook, '--secret', ROTATED_SECRET]},
}

// Profile commands other than add work on a home holding the profile they name.
for (const [id, name] of [
  ['profile:list', 'listed'],
  ['profile:remove', 'gone'],
  ['profile:show', 'shown'],
  ['profile:use', 'used'],
] as const) {
  COMMANDS[id]!.env = async (c) => profileHome(c, name)
}

// ------------------------------------------------------------------ running

let sb: CliSandbox
let ctx: Ctx
const runs: Run[] = []
const record = (r: Run) => runs.push(r)
const covered = new Map<string, string[]>()

function flagSets(json: boolean): string[][] {
  return json
    ? [
        ['--verbose', '--debug'],
        ['--verbose', '--debug', '--json'],
      ]
    : [['--verbose', '--debug']]
}

function envFor(v: Variant): Record<string, string> {
  const base = sb.env()
  if (v === 'wrong key') return {...base, MFG_API_KEY: WRONG_KEY}
  if (v === 'wrong token') return {...base, MFG_AUTH_TOKEN: WRONG_TOKEN}
  return base
}

async function jsonEnabled(id: string): Promise<boolean> {
  const parts = id.split(':')
  const file = parts.length === 1 ? [`${parts[0]}/index.ts`, `${parts[0]}.ts`] : [`${parts.join('/')}.ts`]
  for (const f of file) {
    try {
      const mod = (await import(join(root, 'src/commands', f))) as {default: {enableJsonFlag?: boolean}}
      return mod.default.enableJsonFlag !== false
    } catch {
      // Try the other layout.
    }
  }
  throw new Error(`no command file for ${id}`)
}

beforeAll(async () => {
  sb = await startCliSandbox()
  const tmp = mkdtempSync(join(tmpdir(), 'mfg-secrets-'))
  const api = sandboxClient({url: sb.url, businesses: sb.businesses} as never, sb.businesses[0])
  const demand = async (): Promise<string> => {
    const r = await api.post(`/api/public/v1/demand/create-quotes/${api.business.id}`, [
      {technique: '3D_PRINTING', material: 'PLA', quoteModel: [{fileName: 'cube.stl', material: 'PLA'}]},
    ])
    expect(r.status, r.text).toBe(201)
    return r.body[0]._id as string
  }
  const all = await api.get(`/api/public/v1/demand/${api.business.id}/all?pageSize=100`)
  type Listed = {_id: string; quoteModel?: {fileLink?: string}[]; demandStatusInfo?: {status?: string}}
  const listed = all.body.data as Listed[]
  const withFile = listed.find((d) => d.quoteModel?.some((q) => q.fileLink))!
  const quotable = listed.find(
    (d) => d.demandStatusInfo?.status === 'quote_sent' && d.quoteModel?.some((q) => q.fileLink),
  )!
  const posts = await api.get(`/api/v2/ms-post/post/user-posts/${api.business.id}`)
  const hook = await api.post('/api/v2/integrations_ms/webhooks', {
    businessId: api.business.id,
    url: 'http://127.0.0.1:9/api-hook',
    secret: API_HOOK_SECRET,
    events: ['order_placed', 'quote_request_received'],
    useSecret: true,
  })
  expect(hook.status, hook.text).toBe(201)
  // A link signature learned through the API: the CLI must never print one like it.
  const link = await api.get(`/api/public/v1/demand/access/file/${withFile._id}`)
  expect(link.status, link.text).toBe(200)
  secrets.set('link signature (issued through the API)', new URL(link.body.url).searchParams.get('signature')!)
  ctx = {
    sb,
    api,
    newDemand: demand,
    demandWithFile: withFile._id,
    quotableDemand: quotable._id,
    storedFileLink: withFile.quoteModel!.find((q) => q.fileLink)!.fileLink!,
    async newPost() {
      const r = await api.post(`/api/v2/ms-post/post/${api.business.id}`, {
        type: 'PRODUCT',
        service: '3D_PRINTING',
        price: {priceMachine: '1', priceConception: 0, priceExtra: 0},
        materials: [{title: 'PLA', type: 'plastic', price: 20, currency: 'EUR'}],
      })
      expect(r.status, r.text).toBe(201)
      return r.body._id as string
    },
    product: posts.body.posts[0]._id,
    apiHook: hook.body.data[0]._id,
    tmp,
  }
  sb.businesses.forEach((b, i) => {
    secrets.set(`business ${i} API key`, b.apiKey)
    secrets.set(`business ${i} auth token`, b.authToken)
  })
  expect(secretsOf(sb).every((s) => [...secrets.values()].includes(s))).toBe(true)
  secrets.set('the wrong API key', WRONG_KEY)
  secrets.set('the wrong auth token', WRONG_TOKEN)
  secrets.set('webhook secret set through the API', API_HOOK_SECRET)
  secrets.set('webhook secret given to webhook create', CLI_HOOK_SECRET)
  secrets.set('webhook secret given to webhook update', ROTATED_SECRET)
  secrets.set('webhook secret given to webhook listen', LISTEN_SECRET)
})

afterAll(async () => {
  await sb?.close()
  if (ctx) rmSync(ctx.tmp, {recursive: true, force: true})
})

describe('the scan covers every command', () => {
  it('has one row for each command under src/commands, and none for a command that is gone', () => {
    const ids = commandIds()
    expect(ids.length).toBeGreaterThan(30)
    expect(Object.keys(COMMANDS).sort()).toEqual(ids)
  })
})

describe('in-process commands: right key, wrong key, wrong token; --verbose --debug, with and without --json', () => {
  const inProcess = Object.entries(COMMANDS).filter(([, s]) => !s.spawned)
  it.each(inProcess)('%s', async (id, spec) => {
    const json = await jsonEnabled(id)
    const seen: string[] = []
    for (const variant of ['right', 'wrong key', 'wrong token'] as Variant[]) {
      for (const flags of flagSets(json)) {
        const used = spec.noLogFlags ? flags.filter((f) => f === '--json') : flags
        const argv = [...id.split(':'), ...(await spec.args(ctx, variant)), ...used]
        const env = {...envFor(variant), ...(await spec.env?.(ctx, variant))}
        const r = await runCli(argv, {env, ...(spec.stdin === undefined ? {} : {stdin: spec.stdin})})
        const label = `${id} [${variant}${flags.includes('--json') ? ', --json' : ''}]`
        const run: Run = {...r, label, ...(spec.exempt ? {exempt: spec.exempt(flags)} : {})}
        record(run)
        seen.push(label)
        const want = variant === 'right' ? (spec.ok ?? 0) : variant === 'wrong key' ? spec.wrongKey : spec.wrongToken
        expect(r.exitCode, `${label}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`).toBe(want)
        if (flags.includes('--json') && r.exitCode !== 0 && r.stdout.trim() === '') {
          // The error JSON: one object with code and message, on stderr.
          const last = r.stderr
            .trim()
            .split('\n')
            .find((l) => l.startsWith('{"error"'))
          expect(last, `${label}: ${r.stderr}`).toBeDefined()
          expect(JSON.parse(last!)).toMatchObject({error: {code: expect.any(String), message: expect.any(String)}})
        }
        expect(leaksIn(run)).toEqual([])
      }
    }
    covered.set(id, seen)
  })
})

describe('the commands that run as a process of their own (--verbose --debug)', () => {
  const variants: Variant[] = ['right', 'wrong key', 'wrong token']

  it('mcp proxy: relays initialize and a tool call, then exits when stdin closes', async () => {
    const seen: string[] = []
    const demand = await ctx.newDemand()
    for (const variant of variants) {
      const proxy = spawnMfg(['mcp', 'proxy', '--verbose', '--debug'], envFor(variant))
      const messages = [
        {
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: {protocolVersion: '2025-06-18', capabilities: {}, clientInfo: {name: 'scan', version: '1'}},
        },
        {jsonrpc: '2.0', method: 'notifications/initialized'},
        {jsonrpc: '2.0', id: 2, method: 'tools/call', params: {name: 'get_quote', arguments: {quoteId: demand}}},
      ]
      proxy.child.stdin!.end(messages.map((m) => `${JSON.stringify(m)}\n`).join(''))
      const code = await proxy.exited
      const label = `mcp:proxy [${variant}]`
      const run: Run = {stdout: proxy.stdout(), stderr: proxy.stderr(), exitCode: code ?? -1, label}
      record(run)
      seen.push(label)
      expect(code, `${label}: ${run.stderr}`).toBe(0)
      const answers = run.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as {id: number; result?: {structuredContent?: {_id: string}}; error?: unknown})
      const call = answers.find((a) => a.id === 2)
      if (variant === 'wrong key') expect(call?.error, label).toBeDefined()
      else expect(call?.result?.structuredContent?._id, `${label}: ${run.stdout}`).toBe(demand)
      expect(run.stderr, label).toMatch(/→ POST \/api\/v2\/ms-integrations\/api\/public\/v1\/mcp\/protocol (200|401)/)
      expect(leaksIn(run)).toEqual([])
    }
    covered.set('mcp:proxy', seen)
  })

  it('sandbox serve: prints its own keys only on stdout under --json, masked otherwise', async () => {
    const seen: string[] = []
    const dataDir = mkdtempSync(join(ctx.tmp, 'served-'))
    const serve = async (variant: Variant, json: boolean) => {
      const flags = ['--verbose', '--debug', ...(json ? ['--json'] : [])]
      const child = spawnMfg(['sandbox', 'serve', '--data-dir', dataDir, '--port', '0', ...flags], envFor(variant))
      await child.waitFor(json ? /^\{.*\}\n/m : /Press Ctrl-C to stop/, 'the sandbox to listen')
      const first = child.stdout().split('\n')[0]!
      child.child.kill('SIGINT')
      const code = await child.exited
      const label = `sandbox:serve [${variant}${json ? ', --json' : ''}]`
      const run: Run = {
        stdout: child.stdout(),
        stderr: child.stderr(),
        exitCode: code ?? -1,
        label,
        ...(json ? {exempt: {ownKeysOnStdout: 'documented: the --json line carries the local keys for scripts'}} : {}),
      }
      record(run)
      seen.push(label)
      expect(code, `${label}: ${run.stderr}`).toBe(0)
      return {run, first}
    }
    const {first} = await serve('right', true)
    const served = JSON.parse(first) as {businesses: {apiKey: string; authToken: string}[]}
    served.businesses.forEach((b, i) => {
      secrets.set(`served sandbox business ${i} API key`, b.apiKey)
      secrets.set(`served sandbox business ${i} auth token`, b.authToken)
    })
    expect(served.businesses.length).toBeGreaterThan(1)
    for (const r of runs.filter((r) => r.label.startsWith('sandbox:serve'))) expect(leaksIn(r)).toEqual([])
    for (const variant of variants) {
      const {run} = await serve(variant, false)
      // The human output names each business with its key masked.
      expect(run.stderr).toContain(`API key ****${served.businesses[0]!.apiKey.slice(-4)}`)
      expect(leaksIn(run)).toEqual([])
    }
    covered.set('sandbox:serve', seen)
  })

  it('webhook listen: receives a signed delivery, refuses a forged one, stops on SIGINT', async () => {
    const seen: string[] = []
    const listen = async (variant: Variant, json: boolean) => {
      const flags = ['--verbose', '--debug', ...(json ? ['--json'] : [])]
      const child = spawnMfg(['webhook', 'listen', '--port', '0', '--secret', LISTEN_SECRET, ...flags], envFor(variant))
      const url = (await child.waitFor(/Listening for webhooks on (http:\S+) /, 'the listener URL'))[1]!
      // A subscription made through the API, so the secret is known from the service side.
      const hook = await ctx.api.post('/api/v2/integrations_ms/webhooks', {
        businessId: ctx.api.business.id,
        url,
        secret: LISTEN_SECRET,
        events: ['order_placed'],
        useSecret: true,
      })
      expect(hook.status, hook.text).toBe(201)
      const trigger = await ctx.api.post(`/api/v2/integrations_ms/webhooks/${ctx.api.business.id}/trigger`, {
        type: 'order_placed',
        webhookId: hook.body.data[0]._id,
      })
      expect(trigger.status, trigger.text).toBe(202)
      await child.waitFor(/order_placed/, 'the delivery')
      // A forged delivery: the secret in service-signature is wrong.
      const forged = await fetch(url, {
        method: 'POST',
        headers: {'content-type': 'application/json', 'service-signature': WRONG_TOKEN},
        body: JSON.stringify({id: 'evt_forged', type: 'order_placed', createdAt: new Date().toISOString(), data: {}}),
      })
      expect(forged.status).toBe(401)
      await child.waitFor(/Refused a delivery \(401\)/, 'the refusal')
      child.child.kill('SIGINT')
      const code = await child.exited
      const label = `webhook:listen [${variant}${json ? ', --json' : ''}]`
      const run: Run = {stdout: child.stdout(), stderr: child.stderr(), exitCode: code ?? -1, label}
      record(run)
      seen.push(label)
      // Stopped by Ctrl-C: 130.
      expect(code, `${label}: ${run.stderr}`).toBe(130)
      expect(leaksIn(run)).toEqual([])
    }
    await listen('right', false)
    await listen('right', true)
    await listen('wrong key', false)
    await listen('wrong token', false)
    covered.set('webhook:listen', seen)
  })
})

describe('the scan itself', () => {
  it('finds a secret printed on purpose (so a clean result means something)', async () => {
    const raw = await runCli(['api', 'GET', '/api/v2/integrations_ms/webhooks/{businessId}', '--show-secrets'], {
      env: sb.env(),
    })
    expect(raw.exitCode, raw.stderr).toBe(0)
    // The API-made subscription's secret was rotated by `webhook update`: the service answers the new one.
    expect(leaksIn({...raw, label: 'api --show-secrets'})).toContain(
      'api --show-secrets: webhook secret given to webhook update on stdout',
    )
    const link = await runCli(['file', 'link', ctx.demandWithFile, '--json'], {env: sb.env()})
    expect(link.exitCode, link.stderr).toBe(0)
    expect(leaksIn({...link, label: 'file link'}).join('\n')).toMatch(/a link signature on stdout/)
  })

  it('every command ran: right key, wrong key and wrong token', () => {
    for (const id of Object.keys(COMMANDS)) {
      const seen = covered.get(id) ?? []
      for (const v of ['right', 'wrong key', 'wrong token']) {
        expect(
          seen.some((l) => l.includes(`[${v}`)),
          `${id} ran with ${v}`,
        ).toBe(true)
      }
    }
    console.info(`secrets scan: ${Object.keys(COMMANDS).length} commands, ${runs.length} runs, ${secrets.size} secrets`)
  })
})
