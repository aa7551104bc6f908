// Baseline for bench/list-stream.ts: fetch every page of the v1 list in order and print each item as NDJSON.
const [url, businessId, apiKey, pageSize] = process.argv.slice(2)
let page = 1
let totalPages = 1
while (page <= totalPages) {
  const res = await fetch(`${url}/api/public/v1/demand/${businessId}/all?page=${page}&pageSize=${pageSize}`, {
    headers: {authorization: `Bearer ${apiKey}`},
  })
  if (!res.ok) throw new Error(`HTTP ${res.status}`)
  const body = await res.json()
  totalPages = body.totalPages
  let out = ''
  for (const item of body.data) out += JSON.stringify(item) + '\n'
  if (!process.stdout.write(out)) await new Promise((ok) => process.stdout.once('drain', ok))
  page++
}
