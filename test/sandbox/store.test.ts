import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {createDemands, listDemands} from '../../src/sandbox/demands.js'
import {openSeededStore} from '../../src/sandbox/index.js'
import type {DemandDoc} from '../../src/sandbox/store/demands.js'
import {DB_FILE_NAME, openStore} from '../../src/sandbox/store/index.js'
import {MIGRATIONS, SCHEMA_VERSION, schemaVersion} from '../../src/sandbox/store/schema.js'
import {nodeSqliteDriver} from '../../src/sandbox/store/sql.js'
import {CUSTOMER_OPTIONS, DEMANDS, DEMO_BUSINESS_ID, MACHINES, MATERIALS, PRODUCTS} from '../../src/sandbox/seed.js'

describe('sandbox store', () => {
  it('migrates to the current schema version and seeds deterministically apart from secrets', () => {
    const a = openSeededStore({memory: true})
    const b = openSeededStore({memory: true})
    try {
      expect(schemaVersion(a.db)).toBe(SCHEMA_VERSION)
      const strip = (store: typeof a) => store.businesses.all().map(({authToken: _t, ...rest}) => rest)
      expect(strip(a)).toEqual(strip(b))
      expect(a.businesses.all()[0]?.authToken).not.toBe(b.businesses.all()[0]?.authToken)
      expect(a.catalog.machines(DEMO_BUSINESS_ID)).toEqual(b.catalog.machines(DEMO_BUSINESS_ID))
      expect(a.catalog.machines(DEMO_BUSINESS_ID)).toHaveLength(MACHINES.length)
      expect(a.catalog.materials(DEMO_BUSINESS_ID).map((m) => `${m.technology} ${m.materials}`)).toEqual([
        'FDM PLA',
        'FDM PETG',
        'FDM ABS',
        'SLA Standard Resin',
        'SLS PA12',
        'CNC Aluminium 6061',
        'CNC Steel S235',
        'CNC Brass',
        'LASER Steel S235',
        'LASER Aluminium 5754',
      ])
      expect(a.catalog.materials(DEMO_BUSINESS_ID)).toHaveLength(MATERIALS.length)
      expect(new Set(a.catalog.options(DEMO_BUSINESS_ID).map((o) => o.refer))).toEqual(
        new Set(['lead_time', 'infill', 'precision', 'finishing']),
      )
      expect(a.catalog.options(DEMO_BUSINESS_ID)).toHaveLength(CUSTOMER_OPTIONS.length)
      const products = a.catalog.products(DEMO_BUSINESS_ID)
      expect(products).toHaveLength(PRODUCTS.length)
      expect(products.length).toBeGreaterThanOrEqual(12)
      for (const p of products) {
        expect(p.type).toBe('PRODUCT')
        expect(typeof p.price.priceMachine).toBe('string')
        expect(p.createdAt).toMatch(/^\d{2}\/\d{2}\/\d{4}$/)
      }
      const demo = a.businesses.byId(DEMO_BUSINESS_ID)!
      const seeded = listDemands(a, demo, {
        type: 'all',
        page: 1,
        pageSize: 100,
        archived: false,
        sort: 'createdAt',
      }).data
      const seededB = listDemands(b, demo, {
        type: 'all',
        page: 1,
        pageSize: 100,
        archived: false,
        sort: 'createdAt',
      }).data
      expect(seeded).toEqual(seededB)
      expect(seeded).toHaveLength(DEMANDS.length)
      expect(seeded.map((d) => d.demandStatusInfo.status)).toEqual([
        'quote_sent',
        'special_verified',
        'special_accepted',
        'done',
        'in_shipping',
        'delivered',
        'cancelled',
      ])
      expect(seeded.find((d) => d.demandStatusInfo.status === 'delivered')?.tracking.map((t) => t.status)).toEqual([
        'quote sent',
        'special verified',
        'special accepted',
        'done',
        'in shipping',
        'delivered',
      ])
    } finally {
      a.close()
      b.close()
    }
  })

  it('lists a page out of 100,000 demands through an index, with no sort of its own (the query plan says so)', () => {
    const store = openSeededStore({memory: true})
    try {
      const business = store.businesses.byId(DEMO_BUSINESS_ID)!
      const base = Date.UTC(2026, 0, 1)
      const template: DemandDoc = createDemands({store, business, now: base}, [
        {technique: '3D_PRINTING', material: 'PLA'},
      ])[0]!.doc
      // Copies of one real record with their own ids, numbers, times and kinds: fast to insert.
      store.transaction(() => {
        for (let i = 1; i < 100_000; i++) {
          const at = new Date(base + i * 10).toISOString()
          store.demands.insert({
            ...template,
            _id: `bulk${String(i).padStart(20, '0')}`,
            orderNumber: template.orderNumber + i,
            createdAt: at,
            updatedAt: at,
            jobDetails: {takenAs: i % 3 === 0 ? 'ORDER' : 'QUOTE'},
          })
        }
      })
      expect(store.demands.countByBusiness(DEMO_BUSINESS_ID)).toBe(100_000 + DEMANDS.length)
      const last = listDemands(store, business, {
        type: 'quotes',
        page: 600,
        pageSize: 100,
        archived: false,
        sort: '-createdAt',
      })
      const first = listDemands(store, business, {
        type: 'all',
        page: 1,
        pageSize: 100,
        archived: false,
        sort: '-createdAt',
      })
      expect(last.data).toHaveLength(100)
      expect(first.data[0]?.orderNumber).toBe(100_000 + DEMANDS.length)
      const plan = store.db
        .prepare(
          'EXPLAIN QUERY PLAN SELECT doc FROM demands WHERE business_id = ? AND archived = 0 AND taken_as = ? ORDER BY created_at DESC, order_number DESC LIMIT 100 OFFSET 0',
        )
        .all(DEMO_BUSINESS_ID, 'QUOTE') as {detail: string}[]
      const text = plan.map((p) => p.detail).join('\n')
      expect(text).toMatch(/USING INDEX demands_list/)
      expect(text).not.toMatch(/TEMP B-TREE/)
    } finally {
      store.close()
    }
  })

  it('migrates a version-1 database so a draftId may repeat, keeping its demands', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mfg-migrate-'))
    try {
      const old = nodeSqliteDriver.open(join(dir, DB_FILE_NAME))
      old.exec(MIGRATIONS[0]!)
      old.exec('PRAGMA user_version = 1')
      old.close()
      const store = openStore({dataDir: dir})
      try {
        expect(schemaVersion(store.db)).toBe(SCHEMA_VERSION)
        const index = store.db.prepare("SELECT sql FROM sqlite_master WHERE name = 'demands_draft'").get() as {
          sql: string
        }
        expect(index.sql).not.toMatch(/UNIQUE/)
        store.businesses.insert({
          id: DEMO_BUSINESS_ID,
          name: 'Demo',
          currency: 'EUR',
          webhookAccess: true,
          referral: 'api',
          authToken: 'at_x',
          position: 1,
          createdAt: new Date(0).toISOString(),
        })
        const business = store.businesses.byId(DEMO_BUSINESS_ID)!
        const item = {draftId: 'twice', technique: '3D_PRINTING' as const, material: 'PLA'}
        const first = createDemands({store, business, now: 1000, replay: false}, [item])[0]!.doc
        const second = createDemands({store, business, now: 2000, replay: false}, [item])[0]!.doc
        expect(second._id).not.toBe(first._id)
        // With replay on, the oldest demand carrying the draftId is the one found.
        expect(createDemands({store, business, now: 3000}, [item])[0]).toMatchObject({
          created: false,
          doc: {_id: first._id},
        })
        expect(store.demands.countByBusiness(DEMO_BUSINESS_ID)).toBe(2)
      } finally {
        store.close()
      }
    } finally {
      rmSync(dir, {recursive: true, force: true})
    }
  })

  it('purges idempotency answers older than the window', () => {
    const store = openSeededStore({memory: true})
    try {
      store.idempotency.save({
        businessId: DEMO_BUSINESS_ID,
        key: 'old',
        fingerprint: 'f',
        statusCode: 201,
        body: '[]',
        createdAt: 1000,
      })
      store.idempotency.save({
        businessId: DEMO_BUSINESS_ID,
        key: 'new',
        fingerprint: 'f',
        statusCode: 201,
        body: '[]',
        createdAt: 5000,
      })
      expect(store.idempotency.find(DEMO_BUSINESS_ID, 'old', 2000)).toBeUndefined()
      expect(store.idempotency.purgeBefore(2000)).toBe(1)
      expect(store.idempotency.find(DEMO_BUSINESS_ID, 'new', 2000)?.body).toBe('[]')
    } finally {
      store.close()
    }
  })
})
