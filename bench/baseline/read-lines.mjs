// Baseline for bench/validate-rss.ts: read an NDJSON file line by line and parse each line, keeping nothing.
import {createReadStream} from 'node:fs'
import {createInterface} from 'node:readline'

let rows = 0
for await (const line of createInterface({input: createReadStream(process.argv[2]), crlfDelay: Infinity})) {
  if (line.trim()) {
    JSON.parse(line)
    rows++
  }
}
process.stderr.write(`${rows} rows\n`)
