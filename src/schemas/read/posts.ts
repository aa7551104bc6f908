import type * as z from 'zod'

import {SERVICES} from '../common.js'
import {POST_TYPES} from '../posts.js'
import {bool, count, list, num, openEnum, page, record, text} from './core.js'

/**
 * Products (legacy posts), uploads and signed file links as the CLI reads them.
 * A post needs its `_id`, an uploaded file and a file link their `url`.
 */

const optText = () => text().optional()
const optNum = () => num().optional()

const ModelFileRead = record({originalname: optText(), url: optText()})

const ModelRead = record({
  price: optNum(),
  free: bool().optional(),
  originalname: optText(),
  files: list(ModelFileRead, {dropUnreadable: true}).optional(),
})

/** The models of a post: an object on one post, a list in list answers (interface); read as a list. */
const models = () => list(ModelRead, {dropUnreadable: true}).optional()

export const PostRecordRead = record({
  _id: text(),
  user: optText(),
  type: openEnum(POST_TYPES).optional(),
  service: openEnum(SERVICES).optional(),
  title: optText(),
  category: optText(),
  tags: list(text(), {dropUnreadable: true}).optional(),
  formats: list(text(), {dropUnreadable: true}).optional(),
  free: bool().optional(),
  views: optNum(),
  likes: optNum(),
  /** priceMachine is text in the interface (a number is read as text). */
  price: record({priceMachine: optText(), priceConception: optNum(), priceExtra: optNum()}).optional(),
  materials: list(record({title: optText(), type: optText(), price: optNum(), currency: optText()}), {
    dropUnreadable: true,
  }).optional(),
  models: models(),
  gallery: list(record({type: optText(), url: optText()}), {dropUnreadable: true}).optional(),
  /** DD/MM/YYYY in the interface's samples: kept as text. */
  createdAt: optText(),
  updatedAt: optText(),
})
export type PostRecordRead = z.infer<typeof PostRecordRead>

/** `{posts, currentPage, pageSize, total, totalPages}`; also `{data}`, `{page}` or a bare array. */
export const PostsPageRead = page(
  'posts',
  PostRecordRead,
  {
    currentPage: count(1).optional(),
    pageSize: count(1).optional(),
    total: count().optional(),
    totalPages: count().optional(),
  },
  {
    fix: (obj, set) => {
      if (obj.currentPage === undefined && obj.page !== undefined && obj.page !== null) {
        set('currentPage', obj.page, 'absent, read from page')
      }
    },
  },
)
export type PostsPageRead = z.infer<typeof PostsPageRead>

export const UploadAnswerRead = list(record({url: text(), originalName: optText()}))

export const AddModelAnswerRead = record({
  _id: text(),
  models: models(),
  createdAt: optText(),
  updatedAt: optText(),
})

/**
 * A signed file link. `token` is the signature part of the link: when the
 * service leaves it out it is taken from the link's query ("" when it has none).
 */
export const FileGrantRead = record(
  {url: text(), token: text().default('')},
  {
    fix: (obj, set) => {
      if ((obj.token === undefined || obj.token === null) && typeof obj.url === 'string') {
        const q = obj.url.indexOf('?')
        if (q >= 0) set('token', obj.url.slice(q + 1), 'absent, taken from the query of url')
      }
    },
  },
)
export type FileGrantRead = z.infer<typeof FileGrantRead>

/** Legacy access-storage: a list of links (one object is read as a list of one). */
export const FileGrantsRead = list(FileGrantRead)
