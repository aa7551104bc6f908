// The shapes the CLI holds after reading an answer tolerantly: what commands,
// services and renderers type their data with. The strict schemas of the same
// names (schemas/*.ts) are what the sandbox answers and requests are checked with.
import type {DemandPageRead, DemandRecordRead, LegacyDemandRecordRead} from './demand.js'
import type {FileGrantRead, PostRecordRead, PostsPageRead} from './posts.js'
import type {EstimationAnswerRead, LegacyEstimationAnswerRead} from './pricing.js'
import type {WebhookAnswerRead, WebhookRecordRead} from './webhooks.js'

export type DemandRecord = DemandRecordRead
export type DemandPage = DemandPageRead
export type LegacyDemandRecord = LegacyDemandRecordRead
export type PostRecord = PostRecordRead
export type PostsPage = PostsPageRead
export type FileGrant = FileGrantRead
export type EstimationAnswer = EstimationAnswerRead
export type LegacyEstimationAnswer = LegacyEstimationAnswerRead
export type WebhookRecord = WebhookRecordRead
export type WebhookAnswer = WebhookAnswerRead
