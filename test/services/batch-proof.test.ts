// The proof that a service's look-up by draftId works, kept per profile between
// runs: valid only for the service it was made on, and for a day.
import {mkdtempSync, readFileSync, rmSync, statSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {LookupProofFile} from '../../src/services/demands/batch-proof.js'

describe('LookupProofFile', () => {
  let dir: string
  let file: string
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'mfg-proof-unit-'))
    file = join(dir, 'journals', 'lookup-proof-x.json')
  })
  afterEach(() => rmSync(dir, {recursive: true, force: true}))

  it('is not proven until saved; saved, it is proven for its target, in a 0600 file', () => {
    const proof = new LookupProofFile(file, 'https://api.example.com')
    expect(proof.proven()).toBe(false)
    proof.save()
    expect(proof.proven()).toBe(true)
    expect(new LookupProofFile(file, 'https://api.example.com').proven()).toBe(true)
    expect(statSync(file).mode & 0o777).toBe(0o600)
    expect(statSync(join(dir, 'journals')).mode & 0o777).toBe(0o700)
  })

  it('another base URL needs its own proof', () => {
    new LookupProofFile(file, 'https://api.example.com').save()
    expect(new LookupProofFile(file, 'https://staging.example.com').proven()).toBe(false)
  })

  it('holds for a day', () => {
    let now = Date.UTC(2025, 0, 1)
    new LookupProofFile(file, 't', () => now).save()
    now += 24 * 60 * 60 * 1000 - 1
    expect(new LookupProofFile(file, 't', () => now).proven()).toBe(true)
    now += 1
    expect(new LookupProofFile(file, 't', () => now).proven()).toBe(false)
  })

  it('is forgotten when an answer contradicts it', () => {
    const proof = new LookupProofFile(file, 't')
    proof.save()
    proof.forget()
    expect(proof.proven()).toBe(false)
  })

  it('reads a damaged or foreign file as no proof', () => {
    const proof = new LookupProofFile(file, 't')
    proof.save()
    writeFileSync(file, '{"v":1,"target":"t","draftIdFilter":tr')
    expect(proof.proven()).toBe(false)
    writeFileSync(file, JSON.stringify({v: 2, target: 't', draftIdFilter: true, provenAt: Date.now()}))
    expect(proof.proven()).toBe(false)
    expect(readFileSync(file, 'utf8')).toContain('"v":2')
  })
})
