#!/usr/bin/env node
// What mfg's bin/run.js does before oclif, for the floor: package.json read once and
// handed to oclif, oclif's engine check switched off, Node's compile cache turned on
// (under FLOOR_CACHE_DIR), then oclif's execute.
import {readFileSync} from 'node:fs'
import {enableCompileCache} from 'node:module'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const pjson = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
process.env.OCLIF_DISABLE_ENGINE_WARNING ??= '1'
if (process.env.FLOOR_CACHE_DIR) enableCompileCache(join(process.env.FLOOR_CACHE_DIR, 'compile'))
const {execute} = await import('../dist/main.js')
await execute({loadOptions: {root, pjson}})
