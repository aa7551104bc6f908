// A text prompt for a file path that completes like a shell: Tab fills in the rest of
// the one file or folder that starts with what was typed, or as much as all the
// candidates share, and lists them under the line. Built on @inquirer/core, the
// framework @inquirer/prompts' own prompts are made with.
import {readdirSync} from 'node:fs'
import {extname} from 'node:path'

import {createPrompt, isEnterKey, isTabKey, makeTheme, useKeypress, usePrefix, useState} from '@inquirer/core'

import {expandHome} from './input.js'

export interface PathPromptConfig {
  message: string
  /** File extensions offered by Tab (folders always are), for example ['.stl']. */
  extensions: readonly string[]
  /** An empty answer is allowed (and returned as ''). */
  allowEmpty: boolean
  /** Checks the path typed; true, or the message to show under the line. */
  validate?: (path: string) => true | string
}

/** Folders (ending in /) and files with one of `extensions` whose path starts with `typed`, spelled as typed. */
export function pathCompletions(typed: string, extensions: readonly string[]): string[] {
  const slash = typed.lastIndexOf('/')
  const folder = slash < 0 ? '' : typed.slice(0, slash + 1)
  const start = typed.slice(slash + 1)
  let entries
  try {
    entries = readdirSync(expandHome(folder === '' ? '.' : folder), {withFileTypes: true})
  } catch {
    return []
  }
  const wanted = new Set(extensions.map((e) => e.toLowerCase()))
  const out: string[] = []
  for (const e of entries) {
    if (!e.name.startsWith(start) || (e.name.startsWith('.') && !start.startsWith('.'))) continue
    if (e.isDirectory()) out.push(`${folder}${e.name}/`)
    else if (wanted.has(extname(e.name).toLowerCase())) out.push(folder + e.name)
  }
  return out.sort()
}

/** What Tab makes of `typed`: the one candidate, or the longest start all candidates share. */
export function complete(typed: string, candidates: readonly string[]): string {
  if (candidates.length === 0) return typed
  let common = candidates[0]!
  for (const c of candidates) {
    let i = 0
    while (i < common.length && i < c.length && common[i] === c[i]) i++
    common = common.slice(0, i)
  }
  return common.length > typed.length ? common : typed
}

const SHOWN = 8

export const pathPrompt = createPrompt<string, PathPromptConfig>((config, done) => {
  const theme = makeTheme({})
  const [status, setStatus] = useState<'idle' | 'done'>('idle')
  const [value, setValue] = useState('')
  const [error, setError] = useState<string | undefined>()
  const [listed, setListed] = useState<string[]>([])
  const prefix = usePrefix({status, theme})

  useKeypress((key, rl) => {
    if (status !== 'idle') return
    if (isEnterKey(key)) {
      const answer = value.trim()
      const verdict =
        answer === ''
          ? config.allowEmpty || 'A file is needed'
          : answer.endsWith('/')
            ? 'That is a folder: type on, or press Tab to see its files'
            : (config.validate?.(answer) ?? true)
      if (verdict === true) {
        setStatus('done')
        done(answer)
        return
      }
      // The line was cleared by Enter: put the answer back to be corrected.
      rl.write(value)
      setError(verdict)
      return
    }
    if (isTabKey(key)) {
      const typed = rl.line.replaceAll('\t', '')
      const candidates = pathCompletions(typed, config.extensions)
      const next = complete(typed, candidates)
      rl.clearLine(0)
      rl.write(next)
      setValue(next)
      setListed(candidates.length > 1 ? candidates : [])
      setError(candidates.length === 0 ? 'No file or folder starts with that' : undefined)
      return
    }
    setValue(rl.line)
    setError(undefined)
    setListed([])
  })

  const line = [
    prefix,
    theme.style.message(config.message, status),
    status === 'done' ? theme.style.answer(value) : value,
  ]
    .filter((v) => v !== '')
    .join(' ')
  if (status === 'done') return line
  const below = listed.slice(0, SHOWN).map((c) => `  ${c}`)
  if (listed.length > SHOWN) below.push(`  … and ${listed.length - SHOWN} more`)
  if (error) below.push(theme.style.error(error))
  return [line, below.join('\n')]
})
