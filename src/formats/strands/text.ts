/**
 * The searchable text of a Strands message, one line per block: the same definition as the SQL view
 * `search_text` (migrations/0008_recall.sql) computes from a stored Strands body.
 */
import type {
  ContentBlockData,
  DocumentBlockData,
  MessageData,
  ToolResultContentData,
} from '../../messages/types.js'

function documentText(document: DocumentBlockData): string {
  const source = document.source
  const texts =
    'text' in source ? [source.text] : 'content' in source ? source.content.map((c) => c.text) : []
  return [document.name, texts.join(' ')].filter((t) => t !== '').join(' ')
}

function resultItemText(item: ToolResultContentData): string | undefined {
  if ('text' in item) return item.text
  if ('json' in item) return JSON.stringify(item.json)
  if ('document' in item) return documentText(item.document)
  return undefined
}

function blockText(block: ContentBlockData): string | undefined {
  if ('text' in block) return block.text
  if ('toolUse' in block) return `${block.toolUse.name} ${JSON.stringify(block.toolUse.input)}`
  if ('toolResult' in block) {
    const lines = block.toolResult.content.map(resultItemText).filter((t) => t !== undefined)
    return lines.length > 0 ? lines.join('\n') : undefined
  }
  if ('reasoning' in block) return block.reasoning.text
  if ('document' in block) return documentText(block.document)
  if ('guardContent' in block) return block.guardContent.text?.text
  if ('citations' in block) return block.citations.content.map((c) => c.text).join('\n')
  return undefined
}

/**
 * The text of a Strands message for search and recall.
 *
 * @param message - a validated message
 * @returns its blocks' text, one per line (media, ids, signatures and metadata are not text)
 */
export function strandsText(message: Pick<MessageData, 'content'>): string {
  const lines: string[] = []
  for (const block of message.content) {
    const text = blockText(block)
    if (text !== undefined) lines.push(text)
  }
  return lines.join('\n')
}
