/**
 * What a stored block holds, in the terms the three provider APIs share: text, an image, a document
 * (PDF bytes or text), audio bytes, a tool call. Each converter maps these pieces to its own shapes; the
 * decisions that are the same for all of them (what is dropped, what no provider here can take, how a
 * block that is not content reads as text) are made once, here.
 */
import type {
  ContentBlockData,
  DocumentBlockData,
  MediaBlockData,
  ToolResultContentData,
  ToolUseData,
} from '../messages/types.js'
import {
  blockKind,
  documentText,
  imageMediaType,
  unsupported,
  type BlockPath,
  type ConvertOptions,
  type ImageMediaType,
} from './shared.js'

/** A piece of user content. Text is never empty; a document has its text or its PDF bytes. */
export type Piece =
  | { readonly type: 'text'; readonly text: string }
  | {
      readonly type: 'image'
      readonly source:
        { readonly url: string } | { readonly mediaType: ImageMediaType; readonly data: string }
    }
  | {
      readonly type: 'document'
      readonly document: DocumentBlockData
      readonly content: { readonly text: string } | { readonly pdf: string }
    }
  | { readonly type: 'audio'; readonly format: string; readonly data: string }

/** A piece of assistant content: text (never empty) or a tool call. */
export type AssistantPiece =
  { readonly type: 'text'; readonly text: string } | { readonly type: 'call'; readonly toolUse: ToolUseData }

/** Who converts, and how: the options, the provider's name, and the audio formats it takes. */
export interface PieceContext {
  /** The caller's options. */
  readonly options: ConvertOptions
  /** The provider's API name, for errors and placeholders. */
  readonly provider: string
  /** Audio formats the provider takes as bytes (lower case); empty when it takes none. */
  readonly audio: ReadonlySet<string>
}

const text = (t: string): Piece[] => (t === '' ? [] : [{ type: 'text', text: t }])

/** The text a block that cannot be sent is replaced by, or the error it raises. */
function fail(ctx: PieceContext, path: BlockPath, kind: string, why: string): Piece[] {
  return text(unsupported(ctx.options, ctx.provider, path, kind, why))
}

function image(ctx: PieceContext, path: BlockPath, { format, source }: MediaBlockData): Piece[] {
  if ('url' in source) return [{ type: 'image', source: { url: source.url } }]
  if ('location' in source) return fail(ctx, path, 'image', 'an S3 location is readable by Bedrock only')
  const mediaType = imageMediaType(format)
  if (mediaType === undefined)
    return fail(ctx, path, 'image', `image format "${format}" is not png, jpeg, gif or webp`)
  return [{ type: 'image', source: { mediaType, data: source.bytes } }]
}

function document(ctx: PieceContext, path: BlockPath, doc: DocumentBlockData): Piece[] {
  const body = documentText(doc)
  // A text document with no text is dropped like an empty text block: providers refuse empty text.
  if (body !== undefined)
    return body === '' ? [] : [{ type: 'document', document: doc, content: { text: body } }]
  if ('bytes' in doc.source && doc.format.toLowerCase() === 'pdf')
    return [{ type: 'document', document: doc, content: { pdf: doc.source.bytes } }]
  return fail(ctx, path, 'document', `only PDF files and text documents are sent (format "${doc.format}")`)
}

/**
 * The pieces of one block of a user message or one item of a tool result. Reasoning and cache points
 * give none (a converter that sends them handles them first); so does empty text.
 *
 * @param block - the block (not a toolResult: converters handle those themselves)
 * @param path - where it is
 * @param ctx - options and provider
 * @returns the pieces, in order
 * @throws ContextLedgerError `INVALID_MESSAGE` for a block the provider cannot take, unless placeholders are asked for
 */
export function userPieces(
  block: ContentBlockData | ToolResultContentData,
  path: BlockPath,
  ctx: PieceContext,
): Piece[] {
  if ('text' in block) return text(block.text)
  if ('json' in block) return text(JSON.stringify(block.json))
  if ('image' in block) return image(ctx, path, block.image)
  if ('document' in block) return document(ctx, path, block.document)
  if ('audio' in block) {
    const { format, source } = block.audio
    if ('bytes' in source && ctx.audio.has(format.toLowerCase()))
      return [{ type: 'audio', format: format.toLowerCase(), data: source.bytes }]
    const takes = ctx.audio.size === 0 ? 'no audio' : `only ${[...ctx.audio].join(' and ')} bytes`
    return fail(ctx, path, 'audio', `${ctx.provider} takes ${takes}`)
  }
  if ('guardContent' in block) {
    const { text: guarded, image: guardedImage } = block.guardContent
    return [
      ...(guarded === undefined ? [] : text(guarded.text)),
      ...(guardedImage === undefined ? [] : image(ctx, path, guardedImage)),
    ]
  }
  if ('citations' in block) return text(block.citations.content.map((c) => c.text).join(''))
  if ('reasoning' in block || 'cachePoint' in block) return []
  if ('video' in block) return fail(ctx, path, 'video', `${ctx.provider} takes no video`)
  const kind = blockKind(block)
  return fail(
    ctx,
    path,
    kind,
    kind === 'toolUse' ? 'a tool call belongs in an assistant message' : 'unknown block kind',
  )
}

/**
 * The pieces of one block of an assistant message: its text or its tool call. Reasoning and cache points
 * give none (a converter that sends them handles them first); media cannot be sent there.
 *
 * @param block - the block
 * @param path - where it is
 * @param ctx - options and provider
 * @returns the pieces, in order
 * @throws ContextLedgerError `INVALID_MESSAGE` for a block the provider cannot take, unless placeholders are asked for
 */
export function assistantPieces(
  block: ContentBlockData,
  path: BlockPath,
  ctx: PieceContext,
): AssistantPiece[] {
  const say = (t: string): AssistantPiece[] => (t === '' ? [] : [{ type: 'text', text: t }])
  const refuse = (kind: string, why: string) => say(unsupported(ctx.options, ctx.provider, path, kind, why))
  if ('toolUse' in block) return [{ type: 'call', toolUse: block.toolUse }]
  if ('text' in block) return say(block.text)
  if ('citations' in block) return say(block.citations.content.map((c) => c.text).join(''))
  if ('guardContent' in block) {
    const { text: guarded, image: guardedImage } = block.guardContent
    return [
      ...say(guarded?.text ?? ''),
      ...(guardedImage === undefined ? [] : refuse('image', 'assistant content is text and tool calls')),
    ]
  }
  if ('reasoning' in block || 'cachePoint' in block) return []
  const kind = blockKind(block)
  if ('image' in block || 'document' in block || 'audio' in block || 'video' in block)
    return refuse(kind, 'assistant content is text and tool calls')
  return refuse(kind, 'unknown block kind, or a tool result in an assistant message')
}
