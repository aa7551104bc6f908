import {statSync, existsSync} from 'node:fs'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {resetSandbox} from '../../src/sandbox/index.js'
import {sandboxClient, startTestSandbox} from '../helpers/sandbox.js'
import {useTempDirs} from '../helpers/temp.js'

const tempDir = useTempDirs('mfg-sandbox-')

describe('file-backed sandbox', () => {
  it('creates the directory 0700 and the database 0600, and keeps state and credentials across restarts', async () => {
    const dataDir = join(tempDir(), 'nested', 'data')
    const first = await startTestSandbox({dataDir})
    expect(statSync(dataDir).mode & 0o777).toBe(0o700)
    const dbFile = join(dataDir, 'sandbox.db')
    expect(statSync(dbFile).mode & 0o777).toBe(0o600)
    const client = sandboxClient(first)
    const created = await client.post(`/api/public/v1/demand/create-quotes/${client.business.id}`, [
      {draftId: 'persist-me', technique: '3D_PRINTING', material: 'PLA'},
    ])
    expect(created.status).toBe(201)
    const moved = await client.put(`/api/public/v1/demand/${created.body[0]._id}`, {
      demandStatusInfo: {status: 'special_verified'},
    })
    expect(moved.status).toBe(200)
    const credentials = first.businesses
    await first.close()
    await first.close() // closing twice is harmless

    const second = await startTestSandbox({dataDir})
    try {
      expect(second.businesses).toEqual(credentials)
      expect(second.url).not.toBe('')
      const again = sandboxClient(second)
      const read = await again.get(`/api/public/v1/demand/${created.body[0]._id}`)
      expect(read.status).toBe(200)
      expect(read.body).toEqual(moved.body)
      const next = await again.post(`/api/public/v1/demand/create-quotes/${again.business.id}`, [
        {technique: '3D_PRINTING', material: 'PLA'},
      ])
      expect(next.body[0].orderNumber).toBe(created.body[0].orderNumber + 1)
      expect(statSync(dbFile).mode & 0o777).toBe(0o600)
    } finally {
      await second.close()
    }
  })

  it('resetSandbox wipes the database and seeds a fresh one with new credentials', async () => {
    const dataDir = tempDir()
    const first = await startTestSandbox({dataDir})
    const client = sandboxClient(first)
    const created = await client.post(`/api/public/v1/demand/create-quotes/${client.business.id}`, [
      {technique: '3D_PRINTING', material: 'PLA'},
    ])
    const seededTotal = (await client.get(`/api/public/v1/demand/${client.business.id}/all`)).body.total - 1
    const oldKey = client.business.apiKey
    await first.close()

    await resetSandbox(dataDir)
    expect(statSync(join(dataDir, 'sandbox.db')).mode & 0o777).toBe(0o600)
    expect(existsSync(join(dataDir, 'sandbox.db-wal')) && statSync(join(dataDir, 'sandbox.db-wal')).size > 0).toBe(
      false,
    )

    const second = await startTestSandbox({dataDir})
    try {
      const fresh = sandboxClient(second)
      expect(fresh.business.id).toBe(client.business.id)
      expect(fresh.business.apiKey).not.toBe(oldKey)
      expect((await fresh.get(`/api/public/v1/demand/${created.body[0]._id}`)).status).toBe(404)
      expect((await fresh.get(`/api/public/v1/demand/${fresh.business.id}/all`)).body.total).toBe(seededTotal)
      const oldCredentials = await fresh.get(`/api/public/v1/demand/${fresh.business.id}/all`, {as: client.business})
      expect(oldCredentials.status).toBe(401)
    } finally {
      await second.close()
    }
  })

  it('resetSandbox creates the database when there was none', async () => {
    const dataDir = join(tempDir(), 'new')
    await resetSandbox(dataDir)
    expect(statSync(join(dataDir, 'sandbox.db')).mode & 0o777).toBe(0o600)
    const sandbox = await startTestSandbox({dataDir})
    expect(sandbox.businesses).toHaveLength(2)
    await sandbox.close()
  })
})
