/**
 * Reading a recall tool's input as the model sent it: zod's parse, and an error result the model can
 * read for anything it refuses — including input that cannot be read at all.
 */
import type { z } from 'zod'
import type { RecallToolResult } from './recall-tools.js'

/** The error result for input zod refused: the first issue's path and message. */
function inputError(tool: string, error: z.ZodError, expected: string): RecallToolResult {
  const issue = error.issues[0]
  const where = issue === undefined || issue.path.length === 0 ? 'input' : issue.path.join('.')
  return {
    status: 'error',
    text: `Invalid ${tool} input at ${where}: ${issue?.message ?? 'not an object'}. Expected ${expected}.`,
  }
}

/**
 * Parses a tool's input; a getter or Proxy trap that throws while it is read (no JSON a model sends
 * does) is an error result too, worded as `pin_message`'s.
 *
 * @param tool - the tool's name, for the text
 * @param schema - its input schema
 * @param input - the input as the model sent it
 * @param expected - the shape the text tells the model to send
 * @returns the input, parsed, or the error result
 */
export function parseInput<T>(
  tool: string,
  schema: z.ZodType<T>,
  input: unknown,
  expected: string,
): { ok: true; data: T } | { ok: false; result: RecallToolResult } {
  let parsed: z.ZodSafeParseResult<T>
  try {
    parsed = schema.safeParse(input)
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error)
    return {
      ok: false,
      result: { status: 'error', text: `Invalid ${tool} input: it could not be read (${why}).` },
    }
  }
  return parsed.success
    ? { ok: true, data: parsed.data }
    : { ok: false, result: inputError(tool, parsed.error, expected) }
}
