/**
 * How the Strands adapter reports what it did on its own: repairs, refusals, truncations the store
 * refused, overflows it could not recover from. Lines follow the Strands SDK's log style,
 * `key=<value>, key=<value> | what happened`, and go to a Strands `Logger` (the interface
 * `configureLogging` takes), so one logger can serve both.
 */
import type { Logger } from '@strands-agents/sdk'

/**
 * The logger used when none is given: warnings and errors to the console, debug and info dropped — as
 * the Strands SDK's own default logger does.
 */
export const defaultLogger: Logger = Object.freeze({
  debug: () => {},
  info: () => {},
  warn: (...args: unknown[]) => {
    console.warn(...args)
  },
  error: (...args: unknown[]) => {
    console.error(...args)
  },
})

/** Values of a log line; undefined ones are left out. */
export type LogFields = Readonly<Record<string, string | number | boolean | undefined>>

/**
 * Formats one log line in the Strands style.
 *
 * @param fields - key/value pairs, in order (undefined values are skipped)
 * @param message - what happened
 * @returns e.g. `session_id=<s>, tracking_id=<id> | message repaired`
 */
export function logLine(fields: LogFields, message: string): string {
  const parts: string[] = []
  for (const [key, value] of Object.entries(fields))
    if (value !== undefined) parts.push(`${key}=<${String(value)}>`)
  return parts.length === 0 ? message : `${parts.join(', ')} | ${message}`
}
