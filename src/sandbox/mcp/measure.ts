import {readFileSync} from 'node:fs'

import type {McpServer} from '@modelcontextprotocol/sdk/server/mcp.js'
import * as z from 'zod'

import {measurePart, type Measurement, type SheetMeasurement} from '../../mesh/index.js'
import {badRequest, notFound} from '../errors.js'
import {blobExists, blobPath, keyOfLink, verifyLink} from '../files.js'
import {ok, run, type ToolEnv} from './result.js'

/** measure_part: size, volume, surface area and closedness of a 3D file, or a DXF flat pattern's cut figures (src/mesh). */

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

/** A solid's answer. */
function solidResult(m: Measurement): Record<string, unknown> {
  return {
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
  }
}

/** A flat pattern's answer: size is the blank (bounding box) and the thickness when given. */
function sheetResult(s: SheetMeasurement): Record<string, unknown> {
  return {
    format: 'dxf',
    size: {
      width: round3(s.bbox.width),
      depth: round3(s.bbox.height),
      ...(s.thicknessMm !== null ? {height: s.thicknessMm} : {}),
      unit: 'mm',
    },
    area: round3(s.areaMm2),
    cutLength: round3(s.cutLengthMm),
    pierces: s.pierces,
    bendLines: s.bendLines,
    outlines: s.outlines,
    holes: s.holes,
    openChains: s.openChains,
  }
}

export function registerMeasureTool(server: McpServer, env: ToolEnv): void {
  server.registerTool(
    'measure_part',
    {
      title: 'Measure a part file',
      description:
        "Measures a part file. A 3D file (STL, OBJ, 3MF, STEP/STP or IGES/IGS): size (width, depth, height in mm), volume (mm³), surface area (mm²), whether the mesh is closed (watertight, so the volume is meaningful), plus slicingData to pass to estimate_price. A DXF flat pattern (sheet metal): area (mm², outlines minus holes), cutLength (mm), pierces, bendLines and the blank's size. Send the file as base64 content, or a fileLink of one of the business's files (a quote part's fileLink or a signed link from get_quote_file). Changes nothing.",
      inputSchema: z.strictObject({
        content: z.string().min(1).optional().describe('The file, base64-encoded.'),
        fileLink: z.string().min(1).optional().describe("A link to one of the business's files."),
        fileName: z.string().optional().describe('The file name: a format hint for base64 content.'),
        unit: z
          .enum(['mm', 'cm', 'in'])
          .default('mm')
          .describe('Unit of an STL or OBJ file, or of a DXF that declares none (the other formats carry theirs).'),
        thickness: z.number().positive().optional().describe('Sheet thickness of a DXF flat pattern, mm.'),
      }),
      outputSchema: z.looseObject({
        format: z.string(),
        size: z.looseObject({width: z.number(), depth: z.number(), height: z.number().optional(), unit: z.string()}),
        volume: z.number().optional(),
        surfaceArea: z.number().optional(),
        closed: z.boolean().optional(),
        area: z.number().optional(),
        cutLength: z.number().optional(),
        pierces: z.number().optional(),
        bendLines: z.number().optional(),
      }),
      annotations: {readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false},
    },
    async ({content, fileLink, fileName, unit, thickness}) =>
      run(async () => {
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
        const m = await measurePart(bytes, name ?? 'content', {
          unit,
          ...(thickness !== undefined ? {thicknessMm: thickness} : {}),
        })
        return ok({
          ...(name ? {fileName: name} : {}),
          ...(m.kind === 'sheet' ? sheetResult(m.sheet) : solidResult(m.measurement)),
        })
      }),
  )
}
