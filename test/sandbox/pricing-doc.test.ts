import {readFileSync} from 'node:fs'
import {resolve} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import type {RunningSandbox} from '../../src/sandbox/index.js'
import {openSeededStore} from '../../src/sandbox/index.js'
import {estimate, type Catalog, type PriceBreakdown} from '../../src/sandbox/pricing.js'
import {sandboxClient, startTestSandbox, type SandboxClient} from '../helpers/sandbox.js'

/** The worked examples of docs/pricing.md, read from the page itself. */
interface DocExample {
  title: string
  currency: string | undefined
  body: Record<string, unknown>
  steps: {field: keyof PriceBreakdown; value: number}[]
  price: number
  answerCurrency: string
  bulk?: {quantity: number; unitPrice: number; total: number}[]
}

function readExamples(): DocExample[] {
  const doc = readFileSync(resolve(import.meta.dirname, '../../docs/pricing.md'), 'utf8')
  const sections = doc.split(/^### /m).filter((s) => s.startsWith('Example '))
  return sections.map((section) => {
    const title = section.split('\n')[0] as string
    const request = /^Request: `POST [^`]*?(?:\?currency=([A-Z]{3}))?`/m.exec(section)
    const json = /```json\n([\s\S]*?)\n```/.exec(section)
    const answer = /\*\*Answer: `price` = ([\d.]+) ([A-Z]{3})\*\*/.exec(section)
    if (!request || !json || !answer) throw new Error(`docs/pricing.md: example "${title}" is incomplete`)
    const steps = [...section.matchAll(/^\|[^|\n]*\|\s*`(\w+)`\s*\|\s*(-?[\d.]+)\s*\|$/gm)].map((m) => ({
      field: m[1] as keyof PriceBreakdown,
      value: Number(m[2]),
    }))
    const bulk = /^Bulk: `(\[.*\])`$/m.exec(section)
    return {
      title,
      currency: request[1],
      body: JSON.parse(json[1] as string) as Record<string, unknown>,
      steps,
      price: Number(answer[1]),
      answerCurrency: answer[2] as string,
      ...(bulk ? {bulk: JSON.parse(bulk[1] as string) as DocExample['bulk']} : {}),
    }
  })
}

const examples = readExamples()
let catalog: Catalog
let sandbox: RunningSandbox
let demo: SandboxClient

beforeAll(async () => {
  const store = openSeededStore({memory: true})
  const business = store.businesses.all()[0]!
  catalog = {
    currency: business.currency,
    machines: store.catalog.machines(business.id),
    materials: store.catalog.materials(business.id),
    options: store.catalog.options(business.id),
  }
  store.close()
  sandbox = await startTestSandbox()
  demo = sandboxClient(sandbox)
})
afterAll(() => sandbox.close())

describe('docs/pricing.md worked examples', () => {
  it('has at least one example per technology family and one with options, discount, quantity and currency', () => {
    expect(examples.length).toBeGreaterThanOrEqual(6)
    const technologies = examples.map(
      (e) => estimate(catalog, e.body, {currency: e.answerCurrency}).breakdown.technology,
    )
    expect(new Set(technologies)).toEqual(new Set(['FDM', 'SLA', 'SLS', 'CNC', 'LASER']))
    const mixed = examples.find((e) => e.currency && e.currency !== 'EUR')
    expect(mixed?.body).toMatchObject({discount: expect.any(Number), selectedOptions: expect.any(Array)})
    expect((mixed?.body.quantity as number) > 1).toBe(true)
    for (const e of examples) expect(e.steps.length).toBeGreaterThanOrEqual(6)
  })

  for (const example of examples) {
    it(`${example.title}: every step to the cent through the engine`, () => {
      const {breakdown, bulk} = estimate(catalog, example.body, {currency: example.currency ?? 'EUR'})
      for (const step of example.steps) {
        // Money is rounded to cents, so 1e-9 is equality; factors are products of decimals (1.3 × 1.1).
        const got = breakdown[step.field] as number
        expect(Math.abs(got - step.value), `${step.field}: ${got} vs the doc's ${step.value}`).toBeLessThan(1e-9)
      }
      expect(breakdown.price).toBe(example.price)
      expect(breakdown.currency).toBe(example.answerCurrency)
      if (example.bulk) expect(bulk).toEqual(example.bulk)
    })

    it(`${example.title}: the same answer through HTTP`, async () => {
      const query = example.currency ? `?currency=${example.currency}` : ''
      const answer = await demo.post(`/api/public/v1/price-estimation/${demo.business.id}${query}`, example.body)
      expect(answer.status, answer.text).toBe(200)
      expect(answer.body.data.price).toBe(example.price)
      expect(answer.body.data.currency).toBe(example.answerCurrency)
      expect(answer.body.message).toContain(`${example.price.toFixed(2)} ${example.answerCurrency}`)
      if (example.bulk) expect(answer.body.data.bulk).toEqual(example.bulk)
    })
  }
})
