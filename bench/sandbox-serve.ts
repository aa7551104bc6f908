// The sandbox, from the sources, on the SQLite driver named by the first
// argument (node:sqlite or better-sqlite3), in memory or on a file database in
// the directory named by the second. Prints one JSON line {url, businesses}
// once it listens (as `mfg sandbox serve --json` does). On SIGUSR2 it prints
// {cpuMs}, the CPU time it spent since it listens; on SIGTERM it closes, then
// prints the same up to the close.
// Run by bench/sqlite-drivers.ts: `node --import tsx bench/sandbox-serve.ts DRIVER [DIR]`.
import {startSandbox} from '../src/sandbox/index.js'
import {driverNamed} from './sqlite-drivers.js'

const [name = '', dataDir] = process.argv.slice(2)
const sandbox = await startSandbox({
  ...(dataDir === undefined ? {memory: true} : {dataDir}),
  port: 0,
  host: '127.0.0.1',
  driver: driverNamed(name),
})
const start = process.cpuUsage()
const printCpu = () => {
  const used = process.cpuUsage(start)
  process.stdout.write(`${JSON.stringify({cpuMs: (used.user + used.system) / 1000})}\n`)
}
process.stdout.write(`${JSON.stringify({url: sandbox.url, businesses: sandbox.businesses})}\n`)
process.on('SIGUSR2', printCpu)
process.once('SIGTERM', () => void sandbox.close().then(printCpu))
