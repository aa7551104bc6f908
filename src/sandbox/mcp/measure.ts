import {readFileSync} from 'node:fs'

import type {McpServer} from '@modelcontextprotocol/sdk/server/mcp.js'
import * as z from 'zod'

import {measureMesh, readMesh} from '../../mesh/index.js'
import {badRequest, notFound} from '../errors.js'
import {blobExists, blobPath, keyOfLink, verifyLink} from '../files.js'
import {ok, run, type ToolEnv} from './result.js'

/** measure_part: size, volume, surface area and closedness of a 3D file (src/mesh). */

const round3 = (n: number) => Math.round(n * 1000) / 1000
const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/

/** The bytes of a link to one of the business's stored files: signed (checked) or as stored in a quote. */
function bytesOfLink(env: ToolEnv, link: string): {bytes: Buffer; fileName: string} {
  const {store, signingSecret} = env.ctx
  const key = keyOfLink(link, env.fileHost)
  if (key === undefined)
    throw badRequest(
      "fileLink must be a link to one of this business's files (a quote part's fileLink, or a signed link from get_quote_file); for any other file send its content as base64.",
    )
  const url = new URL(link)
  if (url.searchParams.has('signature') || url.searchParams.has('expires'))
    verifyLink(
      store,
      signingSecret,
      key,
      {
        expires: url.searchParams.get('expires') ?? undefined,
        signature: url.searchParams.get('signature') ?? undefined,
      },
      env.ctx.clock(),
    )
  const file = store.files.byKey(key)
  if (!file || file.businessId !== env.business.id || !blobExists(store, file))
    throw notFound(`The file ${url.origin}${url.pathname} is not in this business's file store.`)
  return {bytes: readFileSync(blobPath(store, file)), fileName: file.originalName}
}

export function registerMeasureTool(server: McpServer, env: ToolEnv): void {
  server.registerTool(
    'measure_part',
    {
      title: 'Measure a 3D part',
      description:
        "Measures a 3D file (STL, OBJ or 3MF): size (width, depth, height in mm), volume (mm³), surface area (mm²), whether the mesh is closed (watertight, so the volume is meaningful), plus slicingData to pass to estimate_price. Send the file as base64 content, or a fileLink of one of the business's files (a quote part's fileLink or a signed link from get_quote_file). Changes nothing.",
      inputSchema: z.strictObject({
        content: z.string().min(1).optional().describe('The file, base64-encoded.'),
        fileLink: z.string().min(1).optional().describe("A link to one of the business's files."),
        fileName: z.string().optional().describe('The file name: a format hint for base64 content.'),
        unit: z.enum(['mm', 'cm', 'in']).default('mm').describe('Unit of an STL or OBJ file (3MF files carry theirs).'),
      }),
      outputSchema: z.looseObject({
        size: z.looseObject({width: z.number(), depth: z.number(), height: z.number(), unit: z.string()}),
        volume: z.number(),
        surfaceArea: z.number(),
        closed: z.boolean(),
      }),
      annotations: {readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false},
    },
    async ({content, fileLink, fileName, unit}) =>
      run(() => {
        if ((content === undefined) === (fileLink === undefined))
          throw badRequest('Send exactly one of content (base64) and fileLink.')
        let bytes: Buffer
        let name = fileName
        if (content !== undefined) {
          const compact = content.replace(/\s+/g, '')
          if (!BASE64.test(compact)) throw badRequest('content must be the file encoded as base64.')
          bytes = Buffer.from(compact, compact.includes('-') || compact.includes('_') ? 'base64url' : 'base64')
        } else {
          const linked = bytesOfLink(env, fileLink as string)
          bytes = linked.bytes
          name ??= linked.fileName
        }
        const m = measureMesh(readMesh(bytes, {...(name ? {fileName: name} : {}), unit}))
        return ok({
          ...(name ? {fileName: name} : {}),
          format: m.format,
          size: {width: round3(m.width), depth: round3(m.depth), height: round3(m.height), unit: 'mm'},
          volume: round3(m.volume),
          surfaceArea: round3(m.area),
          closed: m.closed,
          openEdges: m.openEdges,
          nonManifoldEdges: m.nonManifoldEdges,
          parts: m.parts,
          triangles: m.triangles,
          boundingBoxVolume: round3(m.boundingBoxVolume),
          ...(m.convexHullVolume !== null ? {convexHullVolume: round3(m.convexHullVolume)} : {}),
          slicingData: m.slicingData,
        })
      }),
  )
}
