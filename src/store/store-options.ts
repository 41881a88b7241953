/**
 * The options of `openContextStore`, checked before anything touches the file. A typo must not quietly
 * change what the caller asked for: an unknown key, `synchronous: 'ful'` (which would give NORMAL and lose
 * the durability asked for), a limit of the wrong type or out of bounds — each is refused with
 * `INVALID_OPTIONS` naming the option.
 */
import { z } from 'zod'
import { ContextLedgerError } from '../errors.js'
import { isInMemory, type DatabaseSettings, type OpenDatabaseOptions } from '../db/open.js'
import { resolveMessageLimits, type MessageLimits } from '../messages/limits.js'
import { optionsError } from '../window/window-options.js'

/** Options for `openContextStore`. */
export interface ContextStoreOptions extends OpenDatabaseOptions {
  /**
   * Validation limits for incoming messages: `maxDepth` an integer in [10, 1000] (default 64),
   * `maxStringLength` an integer in [256, 256 Mi] (default 16 Mi).
   */
  limits?: Partial<MessageLimits>
}

/** Checked store options with their defaults filled in. */
export interface StoreSettings extends DatabaseSettings {
  /** Validation limits. */
  readonly limits: Readonly<MessageLimits>
}

/** The largest busy timeout SQLite takes (a C `int` of milliseconds, ~24.8 days). */
const MAX_BUSY_TIMEOUT_MS = 2 ** 31 - 1

const schema = z.strictObject({
  busyTimeoutMs: z.number().int().min(0).max(MAX_BUSY_TIMEOUT_MS).optional(),
  synchronous: z
    .string()
    .refine((s) => /^(normal|full)$/i.test(s), "expected 'normal' or 'full' (any letter case)")
    .optional(),
  readonly: z.boolean().optional(),
  mustExist: z.boolean().optional(),
  limits: z.unknown().optional(),
})

/**
 * Checks the path and options given to `openContextStore` and fills in the defaults.
 *
 * @param path - the file path, `':memory:'` or `''`
 * @param options - what the caller passed
 * @returns complete settings
 * @throws ContextLedgerError `INVALID_OPTIONS` naming the option (`path` set to it)
 */
export function resolveStoreOptions(path: unknown, options: unknown): StoreSettings {
  if (typeof path !== 'string')
    throw new ContextLedgerError(
      'INVALID_OPTIONS',
      `openContextStore takes a file path (a string), got ${typeof path === 'object' ? String(path) : typeof path}`,
      { path: 'path' },
    )
  const parsed = schema.safeParse(options === undefined ? {} : options)
  if (!parsed.success) throw optionsError(parsed.error, 'openContextStore')
  const o = parsed.data
  const readonly = o.readonly ?? false
  const mustExist = o.mustExist ?? false
  if ((readonly || mustExist) && isInMemory(path))
    throw new ContextLedgerError(
      'INVALID_OPTIONS',
      `Invalid openContextStore options at ${readonly ? 'readonly' : 'mustExist'}: an in-memory store has no file to ${readonly ? 'read' : 'require'}`,
      { path: readonly ? 'readonly' : 'mustExist' },
    )
  return Object.freeze({
    busyTimeoutMs: o.busyTimeoutMs ?? 5000,
    synchronous: o.synchronous?.toLowerCase() === 'full' ? 'FULL' : 'NORMAL',
    readonly,
    mustExist,
    limits: resolveMessageLimits(o.limits, 'limits'),
  })
}
