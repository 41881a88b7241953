/**
 * The stored message form: the Strands / Bedrock-Converse `MessageData` JSON (docs/design.md, "Data
 * model"). These types are structural copies of `@strands-agents/sdk`'s so the core never imports the SDK; a Strands
 * `message.toJSON()` is assignable to {@link MessageData} and back.
 */

/** Any JSON value. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue }

/** Who said it. Providers accept only these two roles in messages. */
export type Role = 'user' | 'assistant'

/** An S3 object reference, as Bedrock takes it. */
export interface S3LocationData {
  /** Always `'s3'`. */
  type: 's3'
  /** `s3://bucket/key`. */
  uri: string
  /** The owning account, for cross-account buckets. */
  bucketOwner?: string
}

/** Media bytes (base64 in JSON), an S3 location, or (images only) a URL. */
export type MediaSourceData = { bytes: string } | { location: S3LocationData } | { url: string }

/** An image, video or audio block. */
export interface MediaBlockData {
  /** File format, e.g. `png`, `mp4`, `mp3`. */
  format: string
  /** Where the bytes are. */
  source: MediaSourceData
}

/** A document block. */
export interface DocumentBlockData {
  /** Display name of the document. */
  name: string
  /** File format, e.g. `pdf`, `txt`. */
  format: string
  /** Bytes (base64), inline text, text blocks, or an S3 location. */
  source:
    { bytes: string } | { text: string } | { content: { text: string }[] } | { location: S3LocationData }
  /** Whether the provider should cite it. */
  citations?: { enabled: boolean }
  /** Extra context for the model. */
  context?: string
}

/** A tool call the assistant asked for. */
export interface ToolUseData {
  /** Tool name. */
  name: string
  /** Id linking the call to its result. */
  toolUseId: string
  /** Arguments, any JSON. */
  input: JsonValue
  /** Provider signature for reasoning-bearing tool calls. */
  reasoningSignature?: string
}

/** One item inside a tool result. */
export type ToolResultContentData =
  | { text: string }
  | { json: JsonValue }
  | { image: MediaBlockData }
  | { video: MediaBlockData }
  | { document: DocumentBlockData }

/** The answer to a tool call. */
export interface ToolResultData {
  /** The id of the toolUse this answers. */
  toolUseId: string
  /** Outcome. */
  status: 'success' | 'error'
  /** What the tool returned. */
  content: ToolResultContentData[]
}

/** A citation inside a citations block. */
export interface CitationData {
  /** Where in the source the cited text is. */
  location: { [key: string]: JsonValue }
  /** Source identifier. */
  source: string
  /** Cited source text. */
  sourceContent: { text: string }[]
  /** Source title. */
  title: string
}

/** One content block; exactly one key says its kind. */
export type ContentBlockData =
  | { text: string }
  | { toolUse: ToolUseData }
  | { toolResult: ToolResultData }
  | { reasoning: { text?: string; signature?: string; redactedContent?: string } }
  | { cachePoint: { cacheType: 'default'; ttl?: string } }
  | {
      guardContent: {
        text?: { text: string; qualifiers: string[] }
        image?: { format: string; source: { bytes: string } }
      }
    }
  | { image: MediaBlockData }
  | { video: MediaBlockData }
  | { audio: MediaBlockData }
  | { document: DocumentBlockData }
  | { citations: { citations: CitationData[]; content: { text: string }[] } }

/** Message metadata; never sent to providers. `custom.pinned === true` marks a pin (Strands' flag). */
export interface MessageMetadata {
  /** Token usage the provider reported. */
  usage?: {
    inputTokens: number
    outputTokens: number
    totalTokens: number
    cacheReadInputTokens?: number
    cacheWriteInputTokens?: number
  }
  /** Latency figures. */
  metrics?: { latencyMs: number; timeToFirstByteMs?: number }
  /** Free-form data; `pinned: true` pins the message. */
  custom?: { [key: string]: JsonValue }
}

/** A conversation message in Strands' JSON form. */
export interface MessageData {
  /** Who said it. */
  role: Role
  /** The blocks, in order. */
  content: ContentBlockData[]
  /** Stable id (UUID); minted on append when absent. */
  trackingId?: string | undefined
  /** Usage, metrics and custom data. */
  metadata?: MessageMetadata | undefined
}

/** A message once stored: it always has a tracking id. */
export type StoredMessageData = MessageData & { trackingId: string }
