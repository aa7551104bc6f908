// Writes resent after the service did the work and its answer was lost (a gateway's
// 502 page, a dropped connection): a DELETE or a PUT is idempotent on the wire and is
// resent, and the resend meets what the first attempt left (the product gone, the
// demand already in the stage). Through the built CLI (bin/run.js) against the
// foreign server (server.ts), which answers as the contract says: a second delete is
// 404, a move to the stage the demand is in is 409.
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {cliEnv, spawnCli} from './cases.js'
import {nginxPage, startForeignServer, type ForeignServer, type Quirks} from './server.js'

/** A foreign server with these quirks and a fresh MFG_HOME for `use`. */
async function withServer(quirks: Quirks, use: (server: ForeignServer, home: string) => Promise<void>) {
  const server = await startForeignServer(quirks)
  const home = mkdtempSync(join(tmpdir(), 'mfg-foreign-lost-'))
  try {
    await use(server, home)
  } finally {
    await server.close()
    rmSync(home, {recursive: true, force: true})
  }
}

describe('a write resent after its answer was lost', () => {
  // The service does the work, then a gateway's 502 page (or a reset) takes the answer;
  // a DELETE or PUT is resent, and the resend meets what the first attempt left.
  const lost502: Quirks['first'] = {kind: 'status', status: 502, html: nginxPage(502), afterWork: true}

  it('post delete: the resend finds the product gone (404), and that is the delete done, not "not found"', async () => {
    await withServer({first: lost502}, async (server, home) => {
      const id = server.seed.postIds[0]!
      const r = await spawnCli(['post', 'delete', id, '--yes'], cliEnv(server, home))
      expect(r.exit, r.stderr).toBe(0)
      expect(r.stdout.trim()).toBe(id)
      expect(r.stderr).toContain(`Deleted product ${id}: the answer to the attempt that deleted it was lost (502)`)
      const deletes = server.stats().log.filter((x) => x.method === 'DELETE')
      expect(deletes.map((x) => x.status)).toEqual([502, 404])
    })
  })

  it('post delete: a 404 to a first attempt is still "not found" (exit 1)', async () => {
    await withServer({}, async (server, home) => {
      const r = await spawnCli(['post', 'delete', 'cc0000000000000000000bad', '--yes'], cliEnv(server, home))
      expect(r.exit).toBe(1)
      expect(r.stderr).toContain('Product cc0000000000000000000bad not found')
      expect(r.stderr).not.toContain('earlier attempt')
    })
  })

  it('demand stage: the resend is refused (409, already in the stage); the demand read back is in it, so the move is done', async () => {
    await withServer({first: {kind: 'drop', afterWork: true}}, async (server, home) => {
      const id = server.seed.demandIds[0]!
      const r = await spawnCli(['demand', 'stage', id, 'special_verified', '--json'], cliEnv(server, home))
      expect(r.exit, r.stderr).toBe(0)
      expect(JSON.parse(r.stdout)).toMatchObject({_id: id, demandStatusInfo: {status: 'special_verified'}})
      expect(server.stats().log.map((x) => `${x.method} ${x.status}`)).toEqual(['PUT dropped', 'PUT 409', 'GET 200'])
    })
  })

  it('demand stage: a 409 after a lost answer, the demand not in the stage asked for, stays refused and says the lost attempt may have been carried out', async () => {
    await withServer({first: lost502}, async (server, home) => {
      // quote_sent → done is not a move the contract allows: the first attempt (502) changed nothing.
      const r = await spawnCli(['demand', 'stage', server.seed.demandIds[0]!, 'done'], cliEnv(server, home))
      expect(r.exit).toBe(1)
      expect(r.stderr).toContain('A demand cannot move from quote_sent to done')
      expect(r.stderr).toContain('This answered a retry: an earlier attempt (502) may have been carried out')
    })
  })
})
