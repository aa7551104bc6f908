import {chmodSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync} from 'node:fs'
import {dirname} from 'node:path'

/**
 * Whether a service's look-up by draftId has been proven to find what exists
 * (see DraftIdFinder), remembered between runs so that the proof costs its
 * requests once, not on every lost answer.
 */
export interface LookupProof {
  proven(): boolean
  /** Remembers that the look-up was just proven. */
  save(): void
  /** Forgets a proof that an answer has just contradicted. */
  forget(): void
}

/** How long a proof holds before the look-up is proven again: services change. */
const PROOF_TTL_MS = 24 * 60 * 60 * 1000

interface ProofFile {
  v: 1
  /** The service it was proven on: a new base URL needs a new proof. */
  target: string
  draftIdFilter: boolean
  provenAt: number
}

/**
 * The proof kept in a small JSON file (mode 0600, like the journals beside it),
 * one per profile, valid for the target it was made on and for a day.
 */
export class LookupProofFile implements LookupProof {
  constructor(
    private readonly file: string,
    private readonly target: string,
    private readonly now: () => number = Date.now,
  ) {}

  proven(): boolean {
    let stored: Partial<ProofFile>
    try {
      stored = JSON.parse(readFileSync(this.file, 'utf8')) as Partial<ProofFile>
    } catch {
      return false
    }
    const age = this.now() - (typeof stored.provenAt === 'number' ? stored.provenAt : Number.NaN)
    return (
      stored.v === 1 && stored.target === this.target && stored.draftIdFilter === true && age >= 0 && age < PROOF_TTL_MS
    )
  }

  save(): void {
    this.write({v: 1, target: this.target, draftIdFilter: true, provenAt: this.now()})
  }

  forget(): void {
    rmSync(this.file, {force: true})
  }

  private write(content: ProofFile): void {
    // Written beside and renamed, so a reader never sees half a file. A proof that
    // cannot be kept costs the next run a few requests: never worth failing for.
    const temp = `${this.file}.${process.pid}.tmp`
    try {
      mkdirSync(dirname(this.file), {recursive: true, mode: 0o700})
      writeFileSync(temp, `${JSON.stringify(content)}\n`, {mode: 0o600})
      chmodSync(temp, 0o600)
      renameSync(temp, this.file)
    } catch {
      rmSync(temp, {force: true})
    }
  }
}
